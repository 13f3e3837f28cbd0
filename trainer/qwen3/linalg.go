package qwen3

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// matmulT computes y[rows,out] = x[rows,in] · wᵀ (+ y when accumulate),
// with w a row-major [out,in] matrix: the nn.Linear convention. One row
// uses a row-parallel Sgemv; several rows use gonum's Sgemm for small
// matrices it runs serially and otherwise rowDots, which reads each weight
// row once per block of input rows (Sgemm is several times slower on these
// skinny shapes, see BenchmarkMatmulSkinny).
//
// Both several-row kernels make every output one full-length dot product,
// so a row's result does not depend on how many rows share the call:
// prefilling a prompt in pieces (a cached prefix, then the rest) gives the
// same bits as prefilling it at once. Parallel Sgemm splits the inner
// dimension into blocks, which would break that, so it is never used.
func matmulT(x []float32, rows, in int, w []float32, out int, y []float32, accumulate bool) {
	var beta float32
	if accumulate {
		beta = 1
	}
	if rows == 1 {
		gemvParallel(w, out, in, x, y, beta)
		return
	}
	if out*in < 1<<18 && sgemmSerial(rows, out) { // small: per-dot call overhead would dominate
		blas32.Gemm(blas.NoTrans, blas.Trans, 1,
			blas32.General{Rows: rows, Cols: in, Stride: in, Data: x},
			blas32.General{Rows: out, Cols: in, Stride: in, Data: w},
			beta, blas32.General{Rows: rows, Cols: out, Stride: out, Data: y})
		return
	}
	parallelRows(out, rows*out*in, func(lo, hi int) {
		rowDots(x, rows, in, w, lo, hi, out, y, accumulate)
	})
}

// sgemmSerial says whether gonum's Sgemm computes a rows×out product
// serially, each output one dot product over the whole inner dimension:
// fewer than 4 (minParBlock) blocks of 64×64 (blockSize) outputs.
// TestMatmulRowInvariant checks the bits against rowDots.
func sgemmSerial(rows, out int) bool {
	const block, minParBlock = 64, 4
	return ((rows+block-1)/block)*((out+block-1)/block) < minParBlock
}

// rowBlock is how many input rows share one pass over a weight row.
const rowBlock = 16

// rowDots computes output columns lo..hi of y = x·wᵀ: for each block of
// input rows and each weight row j, the dot products of x's rows with w_j
// (an asm DotUnitary), so w_j stays in L1 across the block.
func rowDots(x []float32, rows, in int, w []float32, lo, hi, out int, y []float32, accumulate bool) {
	for r0 := 0; r0 < rows; r0 += rowBlock {
		r1 := min(r0+rowBlock, rows)
		for j := lo; j < hi; j++ {
			wj := w[j*in : (j+1)*in]
			for r := r0; r < r1; r++ {
				d := blas32.Dot(blas32.Vector{N: in, Inc: 1, Data: x[r*in : (r+1)*in]},
					blas32.Vector{N: in, Inc: 1, Data: wj})
				if accumulate {
					y[r*out+j] += d
				} else {
					y[r*out+j] = d
				}
			}
		}
	}
}

// parallelRows splits [0,n) over the CPUs when work (multiply-adds) is
// large enough to pay for the goroutines.
func parallelRows(n, work int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p == 1 || work < 1<<16 || n < 2*p {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + p - 1) / p
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	wg.Wait()
}

// eachRow runs f(r, scratch) for every unit r < n (a row, or a row's
// attention head), interleaving units over the CPUs when work is large
// enough (prefill rows grow in cost with their position, so interleaving
// balances them); each goroutine has its own scratch of scratchLen floats.
func eachRow(n, work int, f func(r int, scratch []float32), scratchLen int) {
	p := min(n, runtime.GOMAXPROCS(0))
	if work < 1<<16 {
		p = 1
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := make([]float32, scratchLen)
			for r := w; r < n; r += p {
				f(r, scratch)
			}
		}()
	}
	wg.Wait()
}

// gemmT is the gonum Sgemm form of matmulT, kept for the benchmark.
func gemmT(x []float32, rows, in int, w []float32, out int, y []float32) {
	blas32.Gemm(blas.NoTrans, blas.Trans, 1,
		blas32.General{Rows: rows, Cols: in, Stride: in, Data: x},
		blas32.General{Rows: out, Cols: in, Stride: in, Data: w},
		0, blas32.General{Rows: rows, Cols: out, Stride: out, Data: y})
}

// gemvParallel computes y = w·x + beta·y splitting w's rows over the CPUs
// when the matrix is large enough to pay for the goroutines.
func gemvParallel(w []float32, out, in int, x, y []float32, beta float32) {
	gemv := func(lo, hi int) {
		blas32.Gemv(blas.NoTrans, 1,
			blas32.General{Rows: hi - lo, Cols: in, Stride: in, Data: w[lo*in : hi*in]},
			blas32.Vector{N: in, Inc: 1, Data: x}, beta,
			blas32.Vector{N: hi - lo, Inc: 1, Data: y[lo:hi]})
	}
	parallelRows(out, out*in, gemv)
}

// rmsNorm writes y = x / sqrt(mean(x²) + eps) · weight over each row of
// width len(weight); the mean is accumulated in float64 (Qwen3RMSNorm
// computes in float32; the difference is below float32 rounding).
func rmsNorm(x, weight []float32, eps float64, y []float32) {
	n := len(weight)
	for r := 0; r+n <= len(x); r += n {
		row := x[r : r+n]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		inv := float32(1 / math.Sqrt(ss/float64(n)+eps))
		out := y[r : r+n]
		for i, v := range row {
			out[i] = v * inv * weight[i]
		}
	}
}

// ropeAt fills cos and sin (each of length d) for position p: element i
// and i+d/2 share the angle p·inv_freq[i] (emb = concat(freqs, freqs)).
func ropeAt(inv []float32, p int, cos, sin []float32) {
	h := len(inv)
	for i := range inv {
		c, s := RopeCosSin(RopeAngle(inv, p, i))
		cos[i], cos[i+h] = c, c
		sin[i], sin[i+h] = s, s
	}
}

// rotateHalf applies x·cos + rotate_half(x)·sin in place to one head
// vector, where rotate_half(x) = concat(-x[d/2:], x[:d/2]).
func rotateHalf(x, cos, sin []float32) {
	h := len(x) / 2
	for i := 0; i < h; i++ {
		a, b := x[i], x[i+h]
		x[i] = a*cos[i] - b*sin[i]
		x[i+h] = b*cos[i+h] + a*sin[i+h]
	}
}

func silu(x float32) float32 { return x / (1 + float32(math.Exp(float64(-x)))) }

// softmaxInPlace turns scores into probabilities (max-subtracted, float64
// sum).
func softmaxInPlace(s []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float64
	var buf [256]float64
	for lo := 0; lo < len(s); lo += len(buf) {
		c := s[lo:min(lo+len(buf), len(s))]
		e := buf[:len(c)]
		for i, v := range c {
			e[i] = float64(v - mx)
		}
		ExpNegs(e)
		for i, v := range e {
			c[i] = float32(v)
			sum += v
		}
	}
	inv := float32(1 / sum)
	for i := range s {
		s[i] *= inv
	}
}

// LogSoftmax returns log(softmax(logits/temperature)); temperature ≤ 0 is
// treated as 1.
func LogSoftmax(logits []float32, temperature float32) []float32 {
	if temperature <= 0 {
		temperature = 1
	}
	out := make([]float32, len(logits))
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v/temperature))
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v/temperature) - mx)
	}
	lse := mx + math.Log(sum)
	for i, v := range logits {
		out[i] = float32(float64(v/temperature) - lse)
	}
	return out
}
