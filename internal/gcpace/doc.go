// Package gcpace gives the Go garbage collector room while a long
// operation runs: a run's stages, an import.
//
// Layer: internal, below runner and results/transfer; it imports only the
// standard library.
//
// Choices:
//   - These operations allocate a fast stream of short-lived values (request
//     bodies, decoded replies, row arguments) over a small live heap (some
//     megabytes). At Go's default target (collect when the heap has doubled)
//     the collector then runs every few megabytes of allocation: in the
//     candidates stage about once per 500 requests, a tenth of the stage's
//     CPU. While an operation runs, the target is instead the live heap plus
//     at least Headroom (64 MiB): the percent is recomputed from the live heap
//     after every collection, so a small heap is collected several times less
//     often and a heap larger than Headroom keeps Go's default (memory then
//     grows as it would have anyway, never more than 64 MiB beyond it).
//   - A caller may ask for a floor as well (an import, whose live heap of
//     some tens of megabytes was measured faster at 300 %: Import passes it).
//   - A fixed higher percent was measured and not kept: at 400 the demo's
//     peak RSS went from 0.22 to 0.53 GiB, for training stages whose live
//     heap is large and whose garbage is not the cost.
//   - What the user set wins: with GOGC in the environment nothing changes.
//     Collection turned off (or a percent set higher in code) is left alone.
//   - Raise nests and may be called from concurrent runs (a sweep's
//     variants): the first call starts, the last restore puts back the
//     percent that was there before the first.
package gcpace
