package report

import "math/bits"

// pcgLanes yields the outputs of math/rand/v2's PCG, bit for bit, faster
// when many are wanted at once. PCG's state is a 128-bit linear
// congruential generator, s' = a·s + c (mod 2¹²⁸), and each output is a
// function of one state. Stepping one state after another is a chain of
// dependent 128-bit multiplies, which bounds rand.PCG.Uint64 by the
// multiplier's latency (it was a quarter of the bootstrap's CPU, and the
// counts it feeds waited on it). fill steps four states at a time, each
// by four steps (s ↦ a⁴·s + (a³+a²+a+1)·c), so the four chains overlap
// in the processor; the states and outputs are the same ones.
type pcgLanes struct{ hi, lo uint64 }

// The generator's constants, as math/rand/v2 has them (its pcg.go): the
// multiplier a and the increment c, high and low words.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

// pcgStep4 is the map that advances a state by four steps, s ↦ mul·s + inc:
// s ↦ a·s + c composed with itself twice ((A, C) ∘ (A, C) = (A², A·C + C)).
var pcgStep4 = func() (m struct{ mulHi, mulLo, incHi, incLo uint64 }) {
	m.mulHi, m.mulLo, m.incHi, m.incLo = pcgMulHi, pcgMulLo, pcgIncHi, pcgIncLo
	for range 2 {
		m.incHi, m.incLo = affine128(m.incHi, m.incLo, m.mulHi, m.mulLo, m.incHi, m.incLo)
		m.mulHi, m.mulLo = mul128(m.mulHi, m.mulLo, m.mulHi, m.mulLo)
	}
	return m
}()

// mul128 is (xh·2⁶⁴ + xl)·(yh·2⁶⁴ + yl) mod 2¹²⁸.
func mul128(xh, xl, yh, yl uint64) (hi, lo uint64) {
	hi, lo = bits.Mul64(xl, yl)
	hi += xh*yl + xl*yh
	return hi, lo
}

// affine128 is m·s + c mod 2¹²⁸, each number as its high and low words.
func affine128(sh, sl, mh, ml, ch, cl uint64) (hi, lo uint64) {
	hi, lo = mul128(sh, sl, mh, ml)
	lo, carry := bits.Add64(lo, cl, 0)
	hi, _ = bits.Add64(hi, ch, carry)
	return hi, lo
}

// pcgStep is one step of the generator.
func pcgStep(hi, lo uint64) (uint64, uint64) {
	return affine128(hi, lo, pcgMulHi, pcgMulLo, pcgIncHi, pcgIncLo)
}

// step4 advances a state by four steps.
func step4(hi, lo uint64) (uint64, uint64) {
	return affine128(hi, lo, pcgStep4.mulHi, pcgStep4.mulLo, pcgStep4.incHi, pcgStep4.incLo)
}

// pcgOutput is PCG's DXSM output of a state.
func pcgOutput(hi, lo uint64) uint64 {
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return hi
}

// Uint64 is the next output, as rand.PCG.Uint64.
func (p *pcgLanes) Uint64() uint64 {
	p.hi, p.lo = pcgStep(p.hi, p.lo)
	return pcgOutput(p.hi, p.lo)
}

// fill sets dst to the next len(dst) outputs.
func (p *pcgLanes) fill(dst []uint64) {
	if len(dst) < 8 {
		for i := range dst {
			dst[i] = p.Uint64()
		}
		return
	}
	h0, l0 := pcgStep(p.hi, p.lo)
	h1, l1 := pcgStep(h0, l0)
	h2, l2 := pcgStep(h1, l1)
	h3, l3 := pcgStep(h2, l2)
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d := dst[i : i+4 : i+4]
		d[0], d[1], d[2], d[3] = pcgOutput(h0, l0), pcgOutput(h1, l1), pcgOutput(h2, l2), pcgOutput(h3, l3)
		if i+8 <= len(dst) {
			h0, l0 = step4(h0, l0)
			h1, l1 = step4(h1, l1)
			h2, l2 = step4(h2, l2)
			h3, l3 = step4(h3, l3)
		}
	}
	// The state is the last one used (lane 3 of the last block); the rest
	// are single steps from it.
	p.hi, p.lo = h3, l3
	for ; i < len(dst); i++ {
		dst[i] = p.Uint64()
	}
}
