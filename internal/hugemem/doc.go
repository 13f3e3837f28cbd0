// Package hugemem allocates long-lived float32 slabs that the kernel may
// back with 2 MB pages (transparent huge pages): a model's weights, which
// a decoding step reads end to end.
//
// Layer: internal, below trainer; it imports only the standard library
// and golang.org/x/sys.
//
// Choices:
//   - The slab is an ordinary Go slice, over-allocated by 2 MB so that it
//     can start on a 2 MB boundary, and madvise(MADV_HUGEPAGE) is asked
//     before anything touches it, so the page faults that fill it take
//     huge pages where the kernel allows them (Linux with transparent huge
//     pages "always" or "madvise"). Elsewhere, or where the kernel says
//     no, it is a slice in small pages and nothing else changes.
//   - One slab for all of a model's tensors rather than one per tensor:
//     the 63 M engine model's layer matrices are 3 MiB each, and a 3 MiB
//     allocation holds one aligned 2 MB range or none.
//   - On the Go heap rather than mmap'd by hand: it lives while any tensor
//     sliced from it does, and nobody has to unmap it.
package hugemem
