package cpu

import (
	"fmt"
	"runtime"

	"mascot.dev/mascot/trainer/compute"
)

// Options chooses the BLAS, the thread count and the block sizes.
type Options struct {
	// BLAS is "builtin", "openblas", "gonum" or empty: the value of
	// MASCOT_BLAS, and when that is empty too the built-in sgemm.
	BLAS string
	// Threads is how many goroutines an op splits its rows among and how
	// many threads a product uses; 0 means GOMAXPROCS.
	// Results are bit-identical for one thread count.
	Threads int
	// Blocks overrides the block sizes (zero fields keep the defaults);
	// tests make them small so that small shapes cross block edges.
	Blocks Blocks
}

// Blocks are the tile sizes of the blocked ops.
type Blocks struct {
	// AttnQ is the number of queries of one attention block (default 64).
	AttnQ int
	// HeadRows and HeadVocab tile the LM head's logits (defaults 128 and
	// 2048): the largest block of logits held at once is HeadRows×HeadVocab
	// per thread.
	HeadRows, HeadVocab int
	// GemmConvert bounds the elements of a BF16 operand converted to F32
	// at once by Gemm (default 1<<22: Qwen3-0.6B's projections in one block).
	GemmConvert int
}

func (bl *Blocks) fill() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&bl.AttnQ, 64)
	def(&bl.HeadRows, 128)
	def(&bl.HeadVocab, 2048)
	def(&bl.GemmConvert, 1<<22)
}

// Backend implements compute.Backend on the CPU. One goroutine drives it;
// each op runs to completion before it returns, so Sync only reports the
// sticky error.
type Backend struct {
	blas    blasLib
	threads int
	blocks  Blocks
	err     error
	inUse   int64
	scratch [][]float32 // per-thread scratch of the blocked ops
	convA   []float32   // Gemm's widened BF16 blocks
	convB   []float32
}

var _ compute.Backend = (*Backend)(nil)

// New opens a CPU backend.
func New(o Options) (*Backend, error) {
	lib, err := selectBLAS(o.BLAS)
	if err != nil {
		return nil, err
	}
	t := o.Threads
	if t <= 0 {
		t = runtime.GOMAXPROCS(0)
	}
	o.Blocks.fill()
	return &Backend{blas: lib, threads: t, blocks: o.Blocks}, nil
}

// Name implements compute.Backend.
func (b *Backend) Name() string { return "cpu" }

// BLAS is "openblas", "builtin" or "gonum".
func (b *Backend) BLAS() string { return b.blas.name() }

// Threads is the thread count results are deterministic for.
func (b *Backend) Threads() int { return b.threads }

// Describe implements compute.Backend: the BLAS library and the thread
// count.
func (b *Backend) Describe() string {
	return fmt.Sprintf("cpu: %s, %d threads", b.blas.describe(), b.threads)
}

// Sync implements compute.Backend: ops run synchronously, so it returns
// the sticky error.
func (b *Backend) Sync() error { return b.err }

// MemoryInUse implements compute.Backend: bytes of live allocations.
func (b *Backend) MemoryInUse() int64 { return b.inUse }

// fail records the first error; every later op sees b.err and returns.
func (b *Backend) fail(op string, format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("compute/cpu: %s: %s", op, fmt.Sprintf(format, args...))
	}
}

// scratchPerThread returns one scratch buffer of n elements per thread
// (contents undefined), grown on demand and reused by later ops. The
// driving goroutine calls it before a parallel region.
func (b *Backend) scratchPerThread(n int) [][]float32 {
	for len(b.scratch) < b.threads {
		b.scratch = append(b.scratch, nil)
	}
	out := make([][]float32, b.threads)
	for w := range out {
		if cap(b.scratch[w]) < n {
			b.scratch[w] = make([]float32, n)
		}
		out[w] = b.scratch[w][:n]
	}
	return out
}

// parallelBLAS runs a parallel region whose threads each call sgemm on
// small blocks: the BLAS is held to one thread per call meanwhile, so the
// calls run side by side on the region's threads instead of each
// splitting its rows (or, for OpenBLAS, contending for its pool).
func (b *Backend) parallelBLAS(n, grain int, fn func(w, lo, hi int)) {
	b.blas.setThreads(1)
	b.parallelFor(n, grain, fn)
	b.blas.setThreads(b.threads)
}
