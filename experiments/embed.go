// Package experiments embeds mascot's CUE experiments: the paper
// configurations (paper/...), the offline demo (demo), shared rosters and
// prompt templates, and sweeps. They are addressable by name from the CLI
// (`mascot run paper/qmsum`) and importable from user specs as
// "mascot.dev/experiments/<dir>".
//
// Layer: data only; the schema loader reads it.
package experiments

import "embed"

// Files holds every .cue file and the demo's data files.
//
//go:embed all:paper all:demo all:personas all:prompts
var Files embed.FS
