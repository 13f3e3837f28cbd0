package qwen3

import "math"

// RoPE tables as transformers computes them (docs/design/qwen3.md, "RoPE"):
// every step in float32. trainer/qwen3's decoders, trainer/autodiff and
// trainer/net all read their angles from these functions, so the three
// agree bit for bit, and TestRopeMatchesLibm checks them against the same
// formula evaluated with C's powf, cosf and sinf.

// RopeInvFreq returns the d/2 inverse frequencies of head dimension d:
// inv[i] = 1 / theta^(e_i) with e_i = float32(2i) / float32(d), the power
// taken of float32(theta) and every operation rounded to float32, as
// `1.0 / (base ** (torch.arange(0, d, 2).float() / d))` does.
func RopeInvFreq(theta float64, d int) []float32 {
	f := make([]float32, d/2)
	b := float32(theta)
	for i := range f {
		e := float32(2*i) / float32(d)
		f[i] = 1 / powf(b, e)
	}
	return f
}

// powf is float32 x^y, correctly rounded: the float64 power of two
// float32 values is exact to far more than float32's 24 bits.
func powf(x, y float32) float32 { return float32(math.Pow(float64(x), float64(y))) }

// RopeAngle is the angle of frequency i at position p: the float32 product
// float32(p)·inv[i] (transformers' freqs = inv_freq @ position_ids, one
// float32 product per entry).
func RopeAngle(inv []float32, p, i int) float32 { return float32(p) * inv[i] }

// RopeCosSin returns cos and sin of a float32 angle, correctly rounded to
// float32 (computed in float64 and rounded once). C libraries' cosf and
// sinf are faithful but not always correctly rounded; where glibc's differ
// from these, they are off by one unit in the last place (see
// docs/design/qwen3.md).
func RopeCosSin(a float32) (cos, sin float32) {
	x := float64(a)
	return float32(math.Cos(x)), float32(math.Sin(x))
}

// RopeTables returns the cos and sin tables [maxPos, d/2] of head
// dimension d (entry p·d/2 + i is position p, frequency i), the layout of
// compute.Backend's RoPE op.
func RopeTables(theta float64, d, maxPos int) (cos, sin []float32) {
	inv := RopeInvFreq(theta, d)
	h := d / 2
	cos, sin = make([]float32, maxPos*h), make([]float32, maxPos*h)
	for p := range maxPos {
		for i := range h {
			cos[p*h+i], sin[p*h+i] = RopeCosSin(RopeAngle(inv, p, i))
		}
	}
	return cos, sin
}
