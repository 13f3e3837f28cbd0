//go:build cgo

package qwen3

import (
	"math"
	"math/big"
	"testing"

	"mascot.dev/mascot/internal/libm"
)

// The RoPE inverse frequencies and angles equal, bit for bit, transformers'
// float32 formula evaluated with C's powf and float arithmetic:
// inv[i] = 1.0f / powf((float)theta, (float)(2i) / (float)d) and
// angle = (float)p · inv[i], for the real Qwen3 configs (theta 1e6, head_dim
// 128) and others. The previous float64 formula, 1/math.Pow(theta, e)
// rounded once, differed by 1–2 ulps in some frequencies.
//
// cos and sin: glibc's cosf and sinf are faithful (< 0.6 ulp) but not
// correctly rounded, while RopeCosSin is; so every entry either equals C's
// or is the correctly rounded value, checked against a 300-bit reference,
// with C's one ulp away.
func TestRopeMatchesLibm(t *testing.T) {
	oldDiffers := false
	for _, c := range []struct {
		theta float64
		d     int
	}{{1e6, 128}, {1e4, 128}, {1e4, 64}, {5e5, 128}, {1e6, 256}, {1e4, 16}} {
		inv := RopeInvFreq(c.theta, c.d)
		for i, f := range inv {
			e := libm.Div(float32(2*i), float32(c.d))
			want := libm.Div(1, libm.Powf(float32(c.theta), e))
			if math.Float32bits(f) != math.Float32bits(want) {
				t.Fatalf("theta %g d %d: inv_freq[%d] = %v (%#x), C gives %v (%#x)", c.theta, c.d, i, f, math.Float32bits(f), want, math.Float32bits(want))
			}
			old := float32(1 / math.Pow(c.theta, float64(float32(2*i)/float32(c.d))))
			oldDiffers = oldDiffers || old != want
		}
		glibcOff, checked := 0, 0
		for p := 0; p < 40960; p += 13 {
			for i := range inv {
				a := RopeAngle(inv, p, i)
				if want := libm.Mul(float32(p), inv[i]); math.Float32bits(a) != math.Float32bits(want) {
					t.Fatalf("theta %g d %d: angle(%d, %d) = %v, C gives %v", c.theta, c.d, p, i, a, want)
				}
				cs, sn := RopeCosSin(a)
				for _, v := range []struct {
					got, c float32
					cos    bool
				}{{cs, libm.Cosf(a), true}, {sn, libm.Sinf(a), false}} {
					checked++
					if v.got == v.c {
						continue
					}
					glibcOff++
					exact := bigTrig(float64(a), v.cos)
					if v.got != exact || ulps(v.got, v.c) != 1 {
						t.Fatalf("theta %g d %d: cos=%v of %v: ours %v, C %v, correctly rounded %v", c.theta, c.d, v.cos, a, v.got, v.c, exact)
					}
				}
			}
		}
		t.Logf("theta %g d %d: %d of %d cos/sin entries differ from C's by one ulp (C not correctly rounded there)", c.theta, c.d, glibcOff, checked)
	}
	if !oldDiffers {
		t.Errorf("the float64 formula gives the same inverse frequencies: the test would not catch it")
	}
}

func ulps(a, b float32) int {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return int(d)
}

const trigPrec = 300

// bigPi is π to trigPrec bits by Machin's formula.
var bigPi = func() *big.Float {
	atanInv := func(n int64) *big.Float {
		// atan(1/n) = Σ (−1)^k / ((2k+1)·n^(2k+1))
		sum, term := new(big.Float).SetPrec(trigPrec+64), new(big.Float).SetPrec(trigPrec+64)
		x := new(big.Float).SetPrec(trigPrec+64).Quo(big.NewFloat(1), new(big.Float).SetInt64(n))
		n2 := new(big.Float).SetPrec(trigPrec + 64).SetInt64(n * n)
		pow := new(big.Float).SetPrec(trigPrec + 64).Set(x)
		for k := int64(0); k < 400; k++ {
			term.Quo(pow, new(big.Float).SetInt64(2*k+1))
			if k%2 == 0 {
				sum.Add(sum, term)
			} else {
				sum.Sub(sum, term)
			}
			pow.Quo(pow, n2)
		}
		return sum
	}
	a := atanInv(5)
	a.Mul(a, big.NewFloat(16))
	b := atanInv(239)
	b.Mul(b, big.NewFloat(4))
	return a.Sub(a, b)
}()

// bigTrig is cos(x) (or sin(x)) rounded to float32 from a trigPrec-bit
// evaluation: x reduced modulo 2π, then the Taylor series.
func bigTrig(x float64, cos bool) float32 {
	X := new(big.Float).SetPrec(trigPrec).SetFloat64(x)
	twoPi := new(big.Float).SetPrec(trigPrec).Mul(bigPi, big.NewFloat(2))
	q, _ := new(big.Float).SetPrec(trigPrec).Quo(X, twoPi).Int(nil)
	r := new(big.Float).SetPrec(trigPrec).Sub(X, new(big.Float).SetPrec(trigPrec).Mul(new(big.Float).SetInt(q), twoPi))
	r2 := new(big.Float).SetPrec(trigPrec).Mul(r, r)
	term := new(big.Float).SetPrec(trigPrec).SetFloat64(1)
	k0 := 0
	if !cos {
		term.Set(r)
		k0 = 1
	}
	sum := new(big.Float).SetPrec(trigPrec).Set(term)
	for k := 1; k < 120; k++ {
		n := 2*k + k0
		term.Mul(term, r2)
		term.Quo(term, new(big.Float).SetInt64(int64((n-1)*n)))
		term.Neg(term)
		sum.Add(sum, term)
	}
	f, _ := sum.Float32()
	return f
}
