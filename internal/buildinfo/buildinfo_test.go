package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "mascot.dev/mascot", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0c4025b3e1f2aabbccddeeff0011223344556677"},
			{Key: "vcs.time", Value: "2026-12-03T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	in := FromBuildInfo(bi)
	want := Info{Module: "mascot.dev/mascot", Version: "(devel)", Revision: "0c4025b3e1f2aabbccddeeff0011223344556677",
		Time: "2026-12-03T10:00:00Z", Dirty: true, Go: "go1.26.8"}
	if in != want {
		t.Fatalf("FromBuildInfo = %+v, want %+v", in, want)
	}
	if s := in.String(); s != "(devel) rev 0c4025b3e1f2 dirty go1.26.8" {
		t.Fatalf("String() = %q", s)
	}
	clean := FromBuildInfo(&debug.BuildInfo{Main: debug.Module{Path: "m"}})
	if clean.Version != "(devel)" || clean.Dirty || clean.String() != "(devel) (no VCS revision)" {
		t.Fatalf("no settings: %+v %q", clean, clean.String())
	}
	if Read().Module == "" {
		t.Fatal("Read() names no module for this test binary")
	}
}
