// Package membw measures how fast this machine reads memory, the anchor
// of the engine's decode benchmarks: a decoding step of one sequence must
// read every weight once, so bytes of weights ÷ read bandwidth bounds its
// time from below.
//
// Layer: internal, below trainer; used by benchmarks only.
//
// Choices:
//   - The reader is AVX2 assembly (a plain Go loop, where AVX2 is absent)
//     that adds up 128 bytes per iteration into four registers: far more
//     than memory delivers, so the time measured is the memory's.
//   - Read splits the buffers over GOMAXPROCS goroutines, as the decoder
//     splits its matrices, and returns the best of several passes.
package membw
