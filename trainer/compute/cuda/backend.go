//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"mascot.dev/mascot/trainer/compute"
)

// EnvPrecision names the environment variable that picks Options.Precision
// when the caller leaves it empty.
const EnvPrecision = "MASCOT_CUDA_PRECISION"

// Precision chooses how products with a BF16 operand, attention's
// products and the LM head run.
type Precision string

const (
	// BF16 rounds the F32 operand of a product with a BF16 weight, and
	// attention's operands, to bfloat16 and runs the product on the tensor
	// cores with float32 accumulation (the default: what the throughput
	// targets assume; the results meet the bf16 tolerances).
	BF16 Precision = "bf16"
	// F32 runs every product in float32 (BF16 weights widened exactly),
	// meeting the float32 tolerances of the CPU backend at several times
	// the cost: the mode to check a kernel's logic against.
	F32 Precision = "f32"
)

// Options configure a backend.
type Options struct {
	// Precision is BF16 or F32; empty reads MASCOT_CUDA_PRECISION and
	// defaults to BF16.
	Precision Precision
	// ScratchBytes bounds the blocks attention's scores and the LM head's
	// logits are worked through in; 0 means min(2 GiB, an eighth of the
	// free device memory at New).
	ScratchBytes int64
}

// Backend implements compute.Backend on one NVIDIA GPU. Ops are queued on
// one CUDA stream in issue order and run asynchronously; Download,
// SumSquares and Sync wait for them. One goroutine drives a Backend.
type Backend struct {
	st          *state
	stream      unsafe.Pointer
	blas        unsafe.Pointer
	blasVersion int
	prec        Precision
	scratch     int64
	err         error
	closed      bool

	inUse     int64            // bytes of live tensors (Alloc minus Free)
	pool      map[int][]devPtr // freed device blocks by size class, for reuse
	pooled    int64            // bytes held in pool
	temps     []block          // one op's scratch, returned to the pool when it ends
	conv      [2]convEntry     // the last converted Gemm operands
	convClock uint64
	sumBuf    devPtr               // SumSquares' partial sums and result
	owned     map[*buffer]struct{} // live allocations, for Close
}

var _ compute.Backend = (*Backend)(nil)

// New opens a backend on the GPU (MASCOT_CUDA_DEVICE, default 0). The first
// call in a process loads the libraries, initialises the driver and loads
// the kernels (compiled by NVRTC, or from the PTX cache).
func New(o Options) (*Backend, error) {
	st, err := process()
	if err != nil {
		return nil, err
	}
	p := o.Precision
	if p == "" {
		p = Precision(os.Getenv(EnvPrecision))
	}
	if p == "" {
		p = BF16
	}
	if p != BF16 && p != F32 {
		return nil, fmt.Errorf("compute/cuda: precision %q (want %q or %q; %s)", p, BF16, F32, EnvPrecision)
	}
	b := &Backend{st: st, prec: p, pool: map[int][]devPtr{}, owned: map[*buffer]struct{}{}}
	if b.stream, err = st.api.streamCreate(); err != nil {
		return nil, err
	}
	if b.blas, b.blasVersion, err = st.api.blasCreate(b.stream); err != nil {
		_ = st.api.streamDestroy(b.stream)
		return nil, err
	}
	b.scratch = o.ScratchBytes
	if b.scratch <= 0 {
		free, _, err := st.api.memInfo()
		if err != nil {
			return nil, err
		}
		b.scratch = min(2<<30, free/8)
	}
	if b.sumBuf, _, err = b.devAlloc(sumBlocks*8 + 8); err != nil {
		return nil, err
	}
	return b, nil
}

// Name implements compute.Backend.
func (b *Backend) Name() string { return "cuda" }

// Precision is the backend's product precision.
func (b *Backend) Precision() Precision { return b.prec }

// Describe implements compute.Backend: the device, driver, cuBLAS and
// NVRTC versions, where the kernels came from, and the precision.
func (b *Backend) Describe() string {
	d := b.st.dev
	return fmt.Sprintf("cuda: %s (sm_%d%d, %d SMs, %.1f GiB), driver %d.%d, cuBLAS %d, NVRTC %s, kernels %s; %s products",
		d.name, d.major, d.minor, d.sms, float64(d.memory)/(1<<30), b.st.driverVersion/1000, b.st.driverVersion%1000/10,
		b.blasVersion, b.st.nvrtc, b.st.ptxFrom, b.prec)
}

// Device is the GPU's name and compute capability (major, minor).
func (b *Backend) Device() (name string, major, minor int) {
	return b.st.dev.name, b.st.dev.major, b.st.dev.minor
}

// Sync implements compute.Backend: it waits for the stream and returns
// the sticky error.
func (b *Backend) Sync() error {
	if b.err == nil && !b.closed {
		b.failErr("Sync", b.st.api.streamSync(b.stream))
	}
	return b.err
}

// MemoryInUse implements compute.Backend: bytes of live tensors. Freed
// blocks the backend keeps for reuse, and the scratch of ops in flight,
// are not counted.
func (b *Backend) MemoryInUse() int64 { return b.inUse }

// Close waits for queued work and releases the device memory, the stream
// and the cuBLAS handle. The backend is unusable afterwards.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	err := b.st.api.streamSync(b.stream)
	for buf := range b.owned {
		b.devRelease(buf.ptr, buf.class)
		buf.freed = true
	}
	b.releaseConv()
	b.devRelease(b.sumBuf, sizeClass(sumBlocks*8+8))
	err = errors.Join(err, b.trim(), b.st.api.blasDestroy(b.blas), b.st.api.streamDestroy(b.stream))
	b.closed, b.inUse = true, 0
	if b.err == nil {
		b.err = errors.New("compute/cuda: the backend is closed")
	}
	return err
}

// fail records the first error; every later op sees b.err and returns.
func (b *Backend) fail(op string, format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("compute/cuda: %s: %s", op, fmt.Sprintf(format, args...))
	}
}

// failErr records err (a failed driver or cuBLAS call) when it is not nil.
func (b *Backend) failErr(op string, err error) bool {
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("compute/cuda: %s: %w", op, err)
	}
	return err != nil
}
