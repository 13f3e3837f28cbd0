package compute

// Keep says whether Dropout keeps element i of a tensor dropped with
// probability p under seed: a counter-based draw (SplitMix64 of seed and
// i, its top 24 bits read as u in [0, 1)), kept iff u ≥ p. Every backend
// computes the same mask, so the CPU and GPU trainers drop the same
// elements and a backward re-derives the forward's mask from the seed.
func Keep(seed uint64, i int, p float32) bool {
	return Uniform(seed, i) >= p
}

// Uniform is the draw behind Keep: a float32 in [0, 1) with 24 random bits.
func Uniform(seed uint64, i int) float32 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(z>>40) * (1.0 / (1 << 24))
}
