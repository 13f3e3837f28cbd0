package hugemem

import (
	"os"
	"runtime"
	"unsafe"
)

// OffEnv turns AdviseProcess off when set to 0 (or "off", "false").
const OffEnv = "MASCOT_HUGE_PAGES"

// ProcessBytes is the heap a mascot process advises at start: what its
// long operations grow into before their first collections (a run's
// stages, whose heap grows 64 MiB past its live data under
// internal/gcpace; an import, whose tens of megabytes of live data grow
// at 300 % to about 200 MB). A 64 MiB advice left an import half its
// small-page faults (docs/benchmarks.md). Address space only: no page is
// resident until an object is put there.
const ProcessBytes = 256 << 20

// AdviseProcess is what a mascot process does at start (cmd/mascot's
// Main): AdviseHeap over ProcessBytes, unless OffEnv turns it off. It
// returns the bytes advised.
func AdviseProcess() int {
	switch os.Getenv(OffEnv) {
	case "0", "off", "false":
		return 0
	}
	n, _ := AdviseHeap(ProcessBytes)
	return n
}

// AdviseHeap marks the whole 2 MB pages of a fresh n-byte block of heap
// MADV_HUGEPAGE, then frees the block (one collection) for the allocator
// to carve small objects from: their first touch then takes one fault per
// 2 MB instead of one per 4 KiB. The block is never written (memory fresh
// from the kernel needs no zeroing), so it costs address space and the
// collection, no resident memory. It returns the bytes advised.
func AdviseHeap(n int) (int, error) {
	if n < 2*pageBytes {
		return 0, nil
	}
	b := make([]byte, n)
	lo := toPage(unsafe.Pointer(&b[0]))
	hi := lo + (n-lo)/pageBytes*pageBytes
	err := advise(b[lo:hi])
	runtime.KeepAlive(b)
	runtime.GC()
	if err != nil {
		return 0, err
	}
	return hi - lo, nil
}
