// Package membw measures how fast this machine reads memory, the anchor
// of the engine's decode benchmarks: a decoding step of one sequence must
// read every weight once, so bytes of weights ÷ read bandwidth bounds its
// time from below.
//
// Layer: internal, below trainer; used by benchmarks only.
//
// Choices:
//   - The reader is AVX2 assembly (a plain Go loop, where AVX2 is absent)
//     that adds up eight long streams side by side into eight registers:
//     far more arithmetic than memory can feed, and more reads in flight
//     than one stream keeps, so the time measured is the memory's.
//   - Read shares the buffers out to GOMAXPROCS goroutines in 1 MiB pieces
//     taken from a counter, as the decoder shares out its matrix products
//     (a static split would make a loaded machine's bound look lower than
//     it is), and returns the best of several passes.
package membw
