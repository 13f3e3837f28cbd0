// Package hugeheap asks the kernel to back the Go heap a long operation is
// about to grow into with transparent huge pages.
//
// Layer: internal, below cmd/mascot and the benchmark suite; it imports
// only the standard library and golang.org/x/sys/unix.
//
// Why: a process that starts (every `mascot run`, import, export) first
// touches each page of heap it grows into, and the kernel takes a fault
// per 4 KiB page. On the virtual machines mascot was measured on a fault
// is dear, and the candidates stage in a fresh process spent about as
// much CPU touching new heap as sending its requests (docs/benchmarks.md).
// Linux gives huge pages to memory that asks for them when THP is in
// "madvise" mode; Go's runtime does not ask (it stopped in Go 1.21.1).
// Advise maps a block of heap, marks its whole 2 MiB pages MADV_HUGEPAGE
// and frees it: the allocator then carves small objects out of those
// pages, and their first touch takes one fault per 2 MiB.
//
// Choices:
//   - Only where THP is "madvise": with "always" the kernel does it
//     already; with "never" the advice would do nothing. Elsewhere than
//     Linux Advise does nothing.
//   - The block is never written: memory fresh from the kernel needs no
//     zeroing, so it costs address space, one collection to free it, and
//     no resident memory until objects are put there.
//   - Every mascot process advises at start (cmd/mascot). MASCOT_HUGE_PAGES=0
//     in the environment turns it off.
//   - Best effort: a failed advice changes nothing else.
package hugeheap
