package qwen3

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSoftmaxExpsSameBitsInEveryFamily checks SoftmaxExps's vector passes
// (the maximum, the division by the temperature, the exponentials)
// against its Go loops bit for bit: exponentials, maximum and ok, for lengths around the vectors'
// eight, a vocabulary's length, temperatures that round, and logits with
// zeros of both signs as the maximum, NaN, infinities and subnormals.
func TestSoftmaxExpsSameBitsInEveryFamily(t *testing.T) {
	fams := kernelFamilies(t)
	r := rand.New(rand.NewPCG(3, 4))
	gen := map[string]func(i int) float32{
		"normal":    func(int) float32 { return float32(r.NormFloat64() * 4) },
		"zero max":  func(i int) float32 { return []float32{float32(math.Copysign(0, -1)), 0, -1.5, -3}[(i*7)%4] },
		"neg zero":  func(i int) float32 { return []float32{float32(math.Copysign(0, -1)), -2, -0.25}[i%3] },
		"nan":       func(i int) float32 { return []float32{1, 2, float32(math.NaN())}[min(i%97, 2)] },
		"+inf":      func(i int) float32 { return []float32{1, float32(math.Inf(1)), -3}[min(i%53, 2)] },
		"-inf":      func(int) float32 { return float32(math.Inf(-1)) },
		"subnormal": func(i int) float32 { return math.Float32frombits(uint32(1 + i%1000)) },
	}
	for name, g := range gen {
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 40, 49152} {
			lg := make([]float32, n)
			for i := range lg {
				lg[i] = g(i)
			}
			for _, temp := range []float32{0.8, 1, 0.3, 1.7} {
				var want, got []float64
				var wmx, gmx float64
				var wok, gok bool
				for _, fam := range fams {
					useKernels(fam)
					p, mx, ok := SoftmaxExps(lg, temp, nil)
					if want == nil {
						want, wmx, wok = p, mx, ok
						continue
					}
					got, gmx, gok = p, mx, ok
					if gok != wok || math.Float64bits(gmx) != math.Float64bits(wmx) && wok {
						t.Fatalf("%s n %d t %v kernels %s: ok %v max %v, portable ok %v max %v", name, n, temp, fam, gok, gmx, wok, wmx)
					}
					for i := range want {
						if wok && math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s n %d t %v kernels %s: p[%d] %v, portable %v", name, n, temp, fam, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
