package qwen3

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// matmulT computes y[rows,out] = x[rows,in] · wᵀ (+ y when accumulate),
// with w a row-major [out,in] matrix: the nn.Linear convention.
//
// Every output is one dot product over the whole inner dimension, summed
// in a fixed order that depends only on in (dotsT), never on how many rows
// share the call, how the rows are tiled or how the outputs are split over
// the CPUs. A row's result therefore has the same bits alone, beside other
// sequences in a batch, or as one row of a prefill chunk of any size: the
// engine's batch invariance (docs/design/batch-invariance.md) rests on it,
// and TestMatmulRowInvariant checks it bit for bit.
func matmulT(x []float32, rows, in int, w []float32, out int, y []float32, accumulate bool) {
	product(x, rows, in, w, out, y, accumulate, false)
}

// product is matmulT for weights that stream from memory when stream
// (Model.streams: a model larger than the caches): a single row then goes
// through the one-row kernel that prefetches into L2 (dot1x8zs), which
// is faster from memory and slower from cache than dot1x8z. Both give
// every output the same bits.
func product(x []float32, rows, in int, w []float32, out int, y []float32, accumulate, stream bool) {
	if rows == 0 || out == 0 {
		return
	}
	if len(x) < rows*in || len(w) < out*in || len(y) < rows*out {
		panic(fmt.Sprintf("qwen3: matmulT %d×%d by [%d,%d] with %d, %d and %d floats", rows, in, out, in, len(x), len(w), len(y)))
	}
	if rows == 8 && chunkedInner(in) {
		matmulT8k(x, in, w, out, y, accumulate)
		return
	}
	if rows > 4 && rows < 8 && !accumulate && zmmKernels && in%16 == 0 && in > 0 {
		matmulT8(x, rows, in, w, out, y)
		return
	}
	parallelFor(out, productWork(rows, in, out), colAlign, func(lo, hi int) {
		dotsT(x, rows, in, w, lo, hi, y, out, accumulate, stream)
	})
}

// oneCPUWeights is the most weights (floats) a product of a few rows
// keeps on one CPU. Such a product reads its weights from memory at one
// CPU's bandwidth and is over in 0.1–0.3 ms; a second CPU, woken for it,
// joined too late to shorten it: eight rows by [1536,512] and [512,1536]
// (3 MiB) ran 27–32 and 23–24 GB/s on one CPU, 27–28 and 24–25 on two,
// while [3072,1024] (12 MiB) went from 27–32 to 44 and the 100 MiB LM
// head from 27 to 55 (BenchmarkMatmulStream8, -cpu 1 and 2). The engine
// suite's decoding rates per CPU-second rose 10–16 % with it, at the same
// tokens per second (docs/benchmarks.md).
const oneCPUWeights = 2 << 20

// productWork is the work parallelFor weighs for a product of rows input
// rows by an [out,in] matrix: none for a decoding step's rows (eight at
// most) against a matrix under oneCPUWeights, whose product stays on one
// CPU; rows·out·in multiply-adds otherwise (prefill's many rows are
// arithmetic, which a second CPU halves).
func productWork(rows, in, out int) int {
	if rows <= 8 && out*in < oneCPUWeights {
		return 0
	}
	return rows * out * in
}

// matmulT8 is matmulT for five to seven rows on the AVX-512 kernels: the
// rows are padded with zero rows to eight and go through the eight-row
// kernel in one read of the weights, where the four-row kernel took two
// (rows 0–3, then the last four). Every output of a real row keeps its
// bits (one arithmetic per output, whatever the kernel); the padding's
// outputs are dropped. The server's steps of five to seven sequences, as
// requests arrive and leave, take this path.
func matmulT8(x []float32, rows, in int, w []float32, out int, y []float32) {
	xp := getFloats(8 * in)[:8*in]
	copy(xp, x[:rows*in])
	clear(xp[rows*in:]) // zero rows: no stale NaN or subnormal to slow the kernel
	yp := getFloats(8 * out)[:8*out]
	matmulT(xp, 8, in, w, out, yp, false) // eight rows: every eight-row path
	copy(y[:rows*out], yp)
	putFloats(xp)
	putFloats(yp)
}

// colAlign keeps the CPUs' column ranges whole blocks of the kernels'
// eight (one row), three (four or eight rows) and four weight rows.
const colAlign = 24

// rowTile is how many input rows are worked on while a block of three
// weight rows stays in L1 (the rows themselves stay in L2).
const rowTile = 64

// dotsT sets (or adds to) y[r·ldy+j] = x_r · w_j for r < rows and
// lo ≤ j < hi. Each output takes one family's fixed arithmetic: the
// AVX-512 kernels' (dotz_amd64.s) on an AVX-512 CPU when in is a multiple
// of 16, else the AVX2/FMA kernels' (dot_amd64.s) when in is a multiple of
// 8, else dotPortable. Which family runs depends on the CPU and in alone.
func dotsT(x []float32, rows, in int, w []float32, lo, hi int, y []float32, ldy int, acc, stream bool) {
	if zmmKernels && in%16 == 0 && in > 0 {
		dotsTz(x, rows, in, w, lo, hi, y, ldy, acc, stream)
		return
	}
	if !fmaKernels || in%8 != 0 || in == 0 {
		for r := range rows {
			xr, yr := x[r*in:(r+1)*in], y[r*ldy:]
			for j := lo; j < hi; j++ {
				d := dotPortable(xr, w[j*in:(j+1)*in])
				if acc {
					yr[j] += d
				} else {
					yr[j] = d
				}
			}
		}
		return
	}
	for r0 := 0; r0 < rows; r0 += rowTile {
		r1 := min(r0+rowTile, rows)
		rest := avx2Kernels.blocks(x, rows, in, w, lo, hi, y, ldy, acc, r0, r1)
		avx2Kernels.singles(x, in, w, lo, hi, y, ldy, acc, rest, r1)
	}
}

// dotsTz is dotsT with the AVX-512 kernels (dotz_amd64.s, dot8z_amd64.s):
// eight input rows against three weight rows, then four against four for
// the rows left, then one against eight.
func dotsTz(x []float32, rows, in int, w []float32, lo, hi int, y []float32, ldy int, acc, stream bool) {
	fours := zmmKernels4
	if stream {
		fours = zmmKernels4s
	}
	for r0 := 0; r0 < rows; r0 += rowTile {
		r1 := min(r0+rowTile, rows)
		rest := zmmKernels8.blocks(x, rows, in, w, lo, hi, y, ldy, acc, r0, r1)
		if rest < r1 {
			rest = fours.blocks(x, rows, in, w, lo, hi, y, ldy, acc, rest, r1)
			fours.singles(x, in, w, lo, hi, y, ldy, acc, rest, r1)
		}
	}
}

// kernels is one family's assembly kernels (dot_amd64.s, or dotz_amd64.s
// and dot8z_amd64.s): m input rows against n weight rows, one row against
// eight, one against one. Every kernel gives each of its outputs the
// family's one arithmetic, so which of them computes an output never
// changes its bits.
type kernels struct {
	block func(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)
	m, n  int
	row   func(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool)
	one   func(x *float32, w *float32, n int, y *float32, acc bool)
}

var (
	avx2Kernels  = kernels{block: dot4x3, m: 4, n: 3, row: dot1x8, one: dot1x1}
	zmmKernels8  = kernels{block: dot8x3z, m: 8, n: 3, row: dot1x8z, one: dot1x1z}
	zmmKernels4  = kernels{block: dot4x4z, m: 4, n: 4, row: dot1x8z, one: dot1x1z}
	zmmKernels4s = kernels{block: dot4x4z, m: 4, n: 4, row: dot1x8zs, one: dot1x1z}
)

// blocks computes the outputs lo ≤ j < hi of rows r0 ≤ r < r1 that k.block
// covers: m rows at a time, outputs lo+i, lo+i+g, … lo+i+(n−1)g together
// (n long streams through the range), the weights in blocks of quadBlock
// bytes. When the rows are not a multiple of m, and it may (overlapRows),
// the last m rows of the tile go through the kernel too, recomputing some
// rows with the same bits. It returns the first row it left to singles.
func (k kernels) blocks(x []float32, rows, in int, w []float32, lo, hi int, y []float32, ldy int, acc bool, r0, r1 int) int {
	whole := r0 + (r1-r0)/k.m*k.m
	over := overlapRows(k.m, rows, r1, whole, acc)
	if whole == r0 && over < 0 {
		return r0
	}
	g := (hi - lo) / k.n
	kb := blockLen(k.n, in)
	for k0 := 0; k0 < g; k0 += kb {
		k1 := min(k0+kb, g)
		for r := r0; r < whole; r += k.m {
			for i := k0; i < k1; i++ {
				k.block(&x[r*in], in, &w[(lo+i)*in], g*in, in, &y[r*ldy+lo+i], ldy, g, acc)
			}
		}
		for i := k0; over >= 0 && i < k1; i++ {
			k.block(&x[over*in], in, &w[(lo+i)*in], g*in, in, &y[over*ldy+lo+i], ldy, g, acc)
		}
	}
	for j := lo + k.n*g; j < hi; j++ {
		for r := r0; r < r1; r++ {
			if r < whole || over >= 0 {
				k.one(&x[r*in], &w[j*in], in, &y[r*ldy+j], acc)
			}
		}
	}
	if over >= 0 {
		return r1
	}
	return whole
}

// singles computes the outputs lo ≤ j < hi of rows r0 ≤ r < r1 one row at
// a time: outputs lo+i, lo+i+g, …, lo+i+7g together (eight long streams
// through the range, see dot1x8).
func (k kernels) singles(x []float32, in int, w []float32, lo, hi int, y []float32, ldy int, acc bool, r0, r1 int) {
	for r := r0; r < r1; r++ {
		g := (hi - lo) / 8
		for i := range g {
			k.row(&x[r*in], &w[(lo+i)*in], g*in, in, &y[r*ldy+lo+i], g, acc)
		}
		for j := lo + 8*g; j < hi; j++ {
			k.one(&x[r*in], &w[j*in], in, &y[r*ldy+j], acc)
		}
	}
}

// quadBlock is how many bytes of weights the first four rows of a tile go
// over before the next four rows go over the same weights, from L2, which
// holds the block. When the fours took turns on every weight row instead,
// a decoding step of eight sequences read the weights from memory in
// short bursts between passes that computed from L1, and its products
// took longer (docs/benchmarks.md). Only the order of the kernel calls
// changes, not any output's arithmetic.
const quadBlock = 128 << 10

// blockLen is how many steps of a kernel reading streams weight rows of in
// floats each cover quadBlock bytes (at least one).
func blockLen(streams, in int) int { return max(1, quadBlock/(4*streams*in)) }

// overlapRows is where a row tile ending at r1, whose rows from whole on
// are not a whole group of size rows (four or eight), gets them from one
// more call of the size-row kernel: over the last size rows of the
// product (some computed already). A row computed twice gets the same bits
// again (one arithmetic per output, whatever the kernel), and the weights
// are read once for the tile instead of once more per leftover row (a
// step of 7 sequences read them four times). -1 when the leftover rows run
// otherwise: none, fewer than size rows in all, or an accumulating product
// (a row added twice would be wrong).
func overlapRows(size, rows, r1, whole int, acc bool) int {
	if whole == r1 || rows < size || acc {
		return -1
	}
	return r1 - size
}

// dotPortable is the dot product where the FMA kernels do not run, with
// the same lane structure (eight partial sums, then a fixed tree). The
// explicit conversions forbid the compiler to fuse a multiply and an add,
// which it may do on some architectures and not others, so the bits
// depend on this code alone.
func dotPortable(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	n := len(a) &^ 7
	for k := 0; k < n; k += 8 {
		s0 += float32(a[k] * b[k])
		s1 += float32(a[k+1] * b[k+1])
		s2 += float32(a[k+2] * b[k+2])
		s3 += float32(a[k+3] * b[k+3])
		s4 += float32(a[k+4] * b[k+4])
		s5 += float32(a[k+5] * b[k+5])
		s6 += float32(a[k+6] * b[k+6])
		s7 += float32(a[k+7] * b[k+7])
	}
	for k := n; k < len(a); k++ {
		s0 += float32(a[k] * b[k])
	}
	t0, t1, t2, t3 := s0+s4, s1+s5, s2+s6, s3+s7
	return (t0 + t2) + (t1 + t3)
}

// minParallelWork is the fewest multiply-adds worth spreading over the
// CPUs (a goroutine costs about a microsecond, 10⁴–10⁵ multiply-adds).
const minParallelWork = 1 << 15

// parallelFor runs f over [0,n) in ranges whose bounds are multiples of
// align. With enough work, the ranges (about four per CPU) are taken from
// a shared counter by one goroutine per CPU, so a CPU slowed by other
// processes takes fewer of them instead of holding the others up. Which
// range computes which output never changes an output's bits.
func parallelFor(n, work, align int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p == 1 || work < minParallelWork || n < 2*align {
		f(0, n)
		return
	}
	size := (n + 4*p - 1) / (4 * p)
	size = max(align, (size+align-1)/align*align)
	var next atomic.Int64
	worker := func() {
		for {
			lo := int(next.Add(int64(size))) - size
			if lo >= n {
				return
			}
			f(lo, min(lo+size, n))
		}
	}
	var wg sync.WaitGroup
	for range min(p, (n+size-1)/size) - 1 {
		wg.Go(worker)
	}
	worker()
	wg.Wait()
}
