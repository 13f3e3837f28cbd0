package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Info identifies the code of a binary.
type Info struct {
	// Module is the main module's path (mascot.dev/mascot).
	Module string `json:"module"`
	// Version is the main module's version: a tag, a pseudo-version, or
	// "(devel)" for a build from a local checkout.
	Version string `json:"version"`
	// Revision is the VCS commit the binary was built from, when known.
	Revision string `json:"revision,omitempty"`
	// Time is the commit time (RFC 3339), when known.
	Time string `json:"time,omitempty"`
	// Dirty says the working tree had uncommitted changes at build time.
	Dirty bool `json:"dirty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

var (
	once   sync.Once
	cached Info
)

// Read returns the running binary's Info (computed once).
func Read() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			cached = Info{Version: "unknown"}
			return
		}
		cached = FromBuildInfo(bi)
	})
	return cached
}

// FromBuildInfo extracts an Info from build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Dirty = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form --version prints:
// "(devel) rev 0c4025b3e1f2 dirty go1.26.8".
func (i Info) String() string {
	parts := []string{i.Version}
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "rev "+rev)
		if i.Dirty {
			parts = append(parts, "dirty")
		}
	} else {
		parts = append(parts, "(no VCS revision)")
	}
	if i.Go != "" {
		parts = append(parts, i.Go)
	}
	return strings.Join(parts, " ")
}
