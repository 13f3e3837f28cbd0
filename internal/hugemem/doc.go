// Package hugemem asks the kernel to back memory with 2 MB pages
// (transparent huge pages) where that saves work: a model's weights, which
// a decoding step reads end to end (Floats), and the heap a mascot process
// is about to grow into (AdviseProcess).
//
// Layer: internal, below trainer and cmd/mascot; it imports only the
// standard library and golang.org/x/sys.
//
// Choices:
//   - madvise(MADV_HUGEPAGE) is asked before anything touches the memory,
//     so the page faults that fill it take huge pages where the kernel
//     allows them (Linux with transparent huge pages "always" or
//     "madvise"). Elsewhere, or where the kernel says no, the memory is in
//     small pages and nothing else changes.
//   - Weights: one slab for all of a model's tensors rather than one per
//     tensor (the 63 M engine model's layer matrices are 3 MiB each, and a
//     3 MiB allocation holds one aligned 2 MB range or none), an ordinary
//     Go slice over-allocated by 2 MB so that it can start on a 2 MB
//     boundary: it lives while any tensor sliced from it does, and nobody
//     has to unmap it.
//   - The heap: a process that starts (every `mascot run`, import, export)
//     first touches each page of heap it grows into, and the kernel takes
//     a fault per 4 KiB page. On the virtual machines mascot was measured
//     on a fault is dear, and the candidates stage in a fresh process spent
//     about as much CPU touching new heap as sending its requests
//     (docs/benchmarks.md). Go's runtime does not ask for huge pages (it
//     stopped in Go 1.21.1), and in the kernel's usual "madvise" mode only
//     memory that asks gets them. AdviseHeap maps a block of heap, advises
//     its whole 2 MB pages and frees it; the allocator then carves small
//     objects out of those pages. MASCOT_HUGE_PAGES=0 turns it off.
package hugemem
