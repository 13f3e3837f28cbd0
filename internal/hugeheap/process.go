package hugeheap

import "os"

// OffEnv turns the advice off when set to 0 (or "off", "false").
const OffEnv = "MASCOT_HUGE_PAGES"

// ProcessBytes is the heap a mascot process advises at start: what its
// long operations grow into before their first collections (a run's
// stages, whose heap grows 64 MiB past its live data under
// internal/gcpace; an import, whose tens of megabytes of live data grow
// at 300 % to about 200 MB). A 64 MiB advice left an import half its
// small-page faults (docs/benchmarks.md). Address space only: no page is
// resident until an object is put there.
const ProcessBytes = 256 << 20

// AdviseProcess is what a mascot process does at start: Advise over
// ProcessBytes of heap, unless OffEnv turns it off. It returns the bytes
// advised.
func AdviseProcess() int {
	switch os.Getenv(OffEnv) {
	case "0", "off", "false":
		return 0
	}
	n, _ := Advise(ProcessBytes)
	return n
}
