package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// product is one sgemm call's operands, stored with padded leading
// dimensions.
type product struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
}

func newProduct(rng *rand.Rand, transA, transB bool, m, n, k int, alpha, beta float32) *product {
	p := &product{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta}
	ar, ac := stored(transA, m, k)
	br, bc := stored(transB, k, n)
	p.lda, p.ldb, p.ldc = ac+3, bc+1, n+2
	fill := func(rows, ld int) []float32 {
		x := make([]float32, rows*ld)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	p.a, p.b, p.c = fill(ar, p.lda), fill(br, p.ldb), fill(m, p.ldc)
	if beta == 0 {
		for i := range p.c {
			p.c[i] = float32(math.NaN()) // beta 0 must not read C
		}
	}
	return p
}

func (p *product) opA(i, l int) float32 {
	if p.transA {
		return p.a[l*p.lda+i]
	}
	return p.a[i*p.lda+l]
}

func (p *product) opB(l, j int) float32 {
	if p.transB {
		return p.b[j*p.ldb+l]
	}
	return p.b[l*p.ldb+j]
}

// run computes the product into a copy of C with the built-in sgemm.
func (p *product) run(threads int) []float32 {
	c := append([]float32(nil), p.c...)
	newBuiltinBLAS(threads).sgemm(p.transA, p.transB, p.m, p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, c, p.ldc)
	return c
}

func TestBuiltinSgemmMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {5, 17, 3}, {13, 33, 300}, {7, 16, 600}, {64, 48, 16}, {6, 15, 257}, {29, 70, 513}}
	for _, s := range shapes {
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, ab := range [][2]float32{{1, 0}, {0.5, 1}, {-2, -0.25}} {
				name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/alpha=%g/beta=%g", s[0], s[1], s[2], tr[0], tr[1], ab[0], ab[1])
				p := newProduct(rng, tr[0], tr[1], s[0], s[1], s[2], ab[0], ab[1])
				got := p.run(2)
				for i := 0; i < p.m; i++ {
					for j := 0; j < p.ldc; j++ {
						g := got[i*p.ldc+j]
						if j >= p.n {
							if math.Float32bits(g) != math.Float32bits(p.c[i*p.ldc+j]) {
								t.Fatalf("%s: C[%d,%d] past the row's width changed", name, i, j)
							}
							continue
						}
						var want, mag float64
						for l := 0; l < p.k; l++ {
							x := float64(p.opA(i, l)) * float64(p.opB(l, j))
							want += x
							mag += math.Abs(x)
						}
						want *= float64(p.alpha)
						mag *= math.Abs(float64(p.alpha))
						if p.beta != 0 {
							old := float64(p.beta) * float64(p.c[i*p.ldc+j])
							want += old
							mag += math.Abs(old)
						}
						// The worst-case bound of a float32 sum of k+2 terms.
						if d := math.Abs(float64(g) - want); !(d <= float64(p.k+2)*0x1p-24*mag) {
							t.Fatalf("%s: C[%d,%d] = %g, want %g (|error| %g over magnitude %g)", name, i, j, g, want, d, mag)
						}
					}
				}
			}
		}
	}
}

// TestBuiltinSgemmBitsIndependentOfSplit: an element's bits do not depend
// on the thread count, on the other rows of the batch, or on whether its
// column falls in a full or a partial panel.
func TestBuiltinSgemmBitsIndependentOfSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		p := newProduct(rng, tr[0], tr[1], 97, 45, 300, 0.75, 0.5)
		one := p.run(1)
		for _, th := range []int{2, 3, 5} {
			if got := p.run(th); !sameBits(got, one) {
				t.Errorf("tA=%v tB=%v: %d threads differ from one", tr[0], tr[1], th)
			}
		}
		// Row 50 alone: the same bits as in the batch of 97.
		if !tr[0] {
			q := *p
			q.m, q.a, q.c = 1, p.a[50*p.lda:], p.c[50*p.ldc:51*p.ldc]
			if got := q.run(1); !sameBits(got[:p.n], one[50*p.ldc:50*p.ldc+p.n]) {
				t.Errorf("tA=%v tB=%v: row 50 alone differs from row 50 of the batch", tr[0], tr[1])
			}
		}
		// The first 17 columns of a 45-column product (the 17th in a full
		// panel) and of a 17-column one (in a partial panel).
		q := *p
		q.n = 17
		got := q.run(2)
		for i := 0; i < p.m; i++ {
			if !sameBits(got[i*p.ldc:i*p.ldc+17], one[i*p.ldc:i*p.ldc+17]) {
				t.Fatalf("tA=%v tB=%v: row %d of a 17-column product differs from the 45-column one", tr[0], tr[1], i)
			}
		}
	}
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
