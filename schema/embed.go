package schema

import "embed"

// Files holds the CUE definitions of the experiment language, embedded so
// the binary validates without the source tree.
//
//go:embed *.cue
var Files embed.FS
