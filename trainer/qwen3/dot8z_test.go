//go:build amd64

package qwen3

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDot8x3zEqualsOneByOne checks the eight-row kernel against the
// one-row, one-weight-row kernel (dot1x1z, the arithmetic of every
// AVX-512 output) bit for bit: every input row position, every weight
// row, inner sizes that are odd and even multiples of 16, setting and
// accumulating, and input rows and weight rows spaced apart as matmulT
// spaces them.
func TestDot8x3zEqualsOneByOne(t *testing.T) {
	if !zmmKernels {
		t.Skip("this CPU has no AVX-512F: dot8x3z never runs here")
	}
	for _, n := range []int{16, 48, 64, 80, 512, 528, 1536} {
		for _, gap := range []int{0, 1, 7} { // rows between the weight rows used
			ldw, ldx := (gap+1)*n, n+16*gap
			x := make([]float32, 8*ldx)
			w := make([]float32, 3*ldw)
			for i := range x {
				x[i] = float32((i*104729)%997)/997 - 0.5
			}
			for i := range w {
				w[i] = float32((i*7919)%1013)/1013 - 0.5
			}
			for _, acc := range []bool{false, true} {
				const ldy, ycs = 5, 1
				y := make([]float32, 8*ldy)
				want := make([]float32, 8*ldy)
				for i := range y {
					y[i] = float32(i%13) / 13
					want[i] = y[i]
				}
				dot8x3z(&x[0], ldx, &w[0], ldw, n, &y[0], ldy, ycs, acc)
				for r := range 8 {
					for j := range 3 {
						dot1x1z(&x[r*ldx], &w[j*ldw], n, &want[r*ldy+j*ycs], acc)
					}
				}
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
						t.Fatalf("n %d gap %d acc %v: output %d (row %d) is %v, one by one %v", n, gap, acc, i, i/ldy, y[i], want[i])
					}
				}
				for r := range 8 {
					for j := 3; j < ldy; j++ {
						if y[r*ldy+j] != float32((r*ldy+j)%13)/13 {
							t.Fatalf("n %d: row %d column %d outside the kernel's outputs was written", n, r, j)
						}
					}
				}
			}
		}
	}
}

// TestMatmulChunkedEqualsOneByOne checks the chunked eight-row path
// (matmulT8k, dot8x3zk) against dot1x1z bit for bit: inner sizes of two
// to six chunks, output counts that leave the CPUs' ranges with and
// without outputs beyond three streams, setting and accumulating, and the
// five-to-seven-row path that pads to eight; on one CPU and, for the
// largest matrices, spread over the CPUs.
func TestMatmulChunkedEqualsOneByOne(t *testing.T) {
	if !zmmKernels {
		t.Skip("this CPU has no AVX-512F: dot8x3zk never runs here")
	}
	for _, in := range []int{1536, 2048, 3072} {
		if !chunkedInner(in) {
			t.Fatalf("inner size %d does not take the chunked path", in)
		}
		for _, out := range []int{1, 3, 5, 53, 389, 1400} { // 1400: over oneCPUWeights, so spread over the CPUs
			w := make([]float32, out*in)
			x := make([]float32, 8*in)
			for i := range w {
				w[i] = float32((i*7919)%1013)/1013 - 0.5
			}
			for i := range x {
				x[i] = float32((i*104729)%997)/997 - 0.5
			}
			for _, acc := range []bool{false, true} {
				for _, rows := range []int{8, 5, 7} {
					if acc && rows < 8 {
						continue // matmulT8 sets only
					}
					y := make([]float32, rows*out+1)
					for i := range y {
						y[i] = float32(i%13) / 13
					}
					want := slices.Clone(y)
					matmulT(x[:rows*in], rows, in, w, out, y[:rows*out], acc)
					for r := range rows {
						for j := range out {
							dot1x1z(&x[r*in], &w[j*in], in, &want[r*out+j], acc)
						}
					}
					for i := range y {
						if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
							t.Fatalf("in %d out %d rows %d acc %v: output %d is %v, one by one %v", in, out, rows, acc, i, y[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestStreamingProductSameBits checks that the products of a model whose
// weights stream from memory (product with stream, dot1x8zs for single
// rows) give every output the bits of the cached kernels', alone and
// added to what is there: the two one-row kernels differ only in their
// prefetches. Rows 1 to 3 and outputs that leave a remainder after the
// eight-stream blocks take every path of the singles.
func TestStreamingProductSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 2, 3} {
		for _, sh := range [][2]int{{37, 16}, {200, 64}, {1027, 512}} {
			out, in := sh[0], sh[1]
			x, w := make([]float32, rows*in), make([]float32, out*in)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			for i := range w {
				w[i] = float32(r.NormFloat64())
			}
			for _, acc := range []bool{false, true} {
				cached, streamed := make([]float32, rows*out), make([]float32, rows*out)
				for i := range cached {
					cached[i] = float32(i%7) - 3
					streamed[i] = cached[i]
				}
				product(x, rows, in, w, out, cached, acc, false)
				product(x, rows, in, w, out, streamed, acc, true)
				for i := range cached {
					if math.Float32bits(cached[i]) != math.Float32bits(streamed[i]) {
						t.Fatalf("rows %d [%d,%d] acc %v: output %d is %v streamed, %v cached", rows, out, in, acc, i, streamed[i], cached[i])
					}
				}
			}
		}
	}
}
