package cpu

/*
typedef void (*mascot_sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*mascot_setnt_fn)(int);
typedef int (*mascot_getnt_fn)(void);
typedef char *(*mascot_str_fn)(void);

// CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112.
static void mascot_sgemm(void *f, int ta, int tb, int m, int n, int k, float alpha,
		const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
	((mascot_sgemm_fn)f)(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
static void mascot_setnt(void *f, int n) { ((mascot_setnt_fn)f)(n); }
static int mascot_getnt(void *f) { return ((mascot_getnt_fn)f)(); }
static const char *mascot_str(void *f) { return ((mascot_str_fn)f)(); }
*/
import "C"

import (
	"os"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/cpu"

	"mascot.dev/mascot/internal/dl"
)

// openBLASNames are the files tried, in order: Debian's and most
// distributions' soname first, then the development link and the names of
// OpenBLAS's own install.
var openBLASNames = []string{"libopenblas.so.0", "libopenblas.so", "libopenblasp-r0.so", "libopenblaso.so.0"}

// openBLASDirs are searched after the loader's own paths (an OpenBLAS
// built from source installs to /opt/OpenBLAS/lib).
var openBLASDirs = []string{"/usr/lib/x86_64-linux-gnu/openblas-pthread", "/usr/local/lib", "/opt/OpenBLAS/lib"}

// openBLAS is the library loaded once per process; its thread count is
// process-wide, so every Backend shares it and sets it before each call
// that depends on it.
type openBLAS struct {
	path               string
	gemm, setNT, getNT unsafe.Pointer
	config, corename   string
	coreChosen         string // the OPENBLAS_CORETYPE chooseCoreType set, if any
	timeoutChosen      string // the OPENBLAS_THREAD_TIMEOUT chooseThreadTimeout set, if any
	mu                 sync.Mutex
	nt                 int
}

var (
	openBLASOnce sync.Once
	openBLASLib  *openBLAS
	openBLASErr  error
)

func loadOpenBLAS() (*openBLAS, error) {
	openBLASOnce.Do(func() {
		chosen, timeout := chooseCoreType(), chooseThreadTimeout()
		openBLASLib, openBLASErr = openOpenBLAS(openBLASNames, openBLASDirs)
		if openBLASLib != nil {
			openBLASLib.coreChosen, openBLASLib.timeoutChosen = chosen, timeout
		}
	})
	return openBLASLib, openBLASErr
}

// chooseCoreType sets OPENBLAS_CORETYPE, when the user has not, to the
// kernel family the CPU's features support. OpenBLAS's DYNAMIC_ARCH build
// picks its kernels at load time from the CPU model, and a model newer
// than the library (this machine's Xeon under 0.3.21) falls back to
// Prescott's SSE3 kernels: 14–42 GFLOP/s on 2 cores where SkylakeX's
// AVX-512 kernels reach 200–240 (docs/benchmarks.md). The variable is read
// when the library is loaded, so it must be set before. It returns the
// value it set, or "".
func chooseCoreType() string {
	if _, set := os.LookupEnv("OPENBLAS_CORETYPE"); set {
		return ""
	}
	var core string
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL:
		core = "SkylakeX"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		core = "Haswell"
	default:
		return ""
	}
	if os.Setenv("OPENBLAS_CORETYPE", core) != nil {
		return ""
	}
	return core
}

// threadTimeout is the OPENBLAS_THREAD_TIMEOUT chooseThreadTimeout sets:
// OpenBLAS's idle threads spin for 2^14 cycles (a few µs) after a
// product before they sleep.
const threadTimeout = "14"

// chooseThreadTimeout sets OPENBLAS_THREAD_TIMEOUT, when the user has not,
// to threadTimeout. OpenBLAS's pthreads build keeps its idle threads
// spinning (with sched_yield) for 2^28 cycles, about 0.1 s, after every
// product, so that a next product finds them awake. A trainer's products
// are separated by the network's own work, which the spinning threads
// then take a core from and bill as CPU time; large products lose nothing
// to the wake-up (docs/benchmarks.md, the demo). Read when the library is
// loaded, so set before. It returns the value it set, or "".
func chooseThreadTimeout() string {
	if _, set := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); set {
		return ""
	}
	if os.Setenv("OPENBLAS_THREAD_TIMEOUT", threadTimeout) != nil {
		return ""
	}
	return threadTimeout
}

func openOpenBLAS(names, dirs []string) (*openBLAS, error) {
	lib, err := dl.Open(names, dirs)
	if err != nil {
		return nil, err
	}
	syms, err := lib.Syms("cblas_sgemm", "openblas_set_num_threads", "openblas_get_num_threads")
	if err != nil {
		return nil, err
	}
	ob := &openBLAS{path: lib.Path, gemm: syms["cblas_sgemm"], setNT: syms["openblas_set_num_threads"], getNT: syms["openblas_get_num_threads"]}
	if p, err := lib.Sym("openblas_get_config"); err == nil {
		ob.config = strings.TrimSpace(C.GoString(C.mascot_str(p)))
	}
	if p, err := lib.Sym("openblas_get_corename"); err == nil {
		ob.corename = C.GoString(C.mascot_str(p))
	}
	ob.nt = int(C.mascot_getnt(ob.getNT))
	return ob, nil
}

func (o *openBLAS) name() string { return "openblas" }

func (o *openBLAS) describe() string {
	s := "OpenBLAS " + o.path
	if o.config != "" {
		s += " (" + o.config
		if o.corename != "" {
			s += ", core " + o.corename
		}
		if o.coreChosen != "" {
			s += " from the CPU's features; set OPENBLAS_CORETYPE to override"
		}
		if o.timeoutChosen != "" {
			s += "; idle threads sleep after 2^" + o.timeoutChosen + " cycles, set OPENBLAS_THREAD_TIMEOUT to override"
		}
		s += ")"
	}
	return s
}

func (o *openBLAS) setThreads(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n != o.nt {
		C.mascot_setnt(o.setNT, C.int(n))
		o.nt = int(C.mascot_getnt(o.getNT))
	}
}

func (o *openBLAS) threads() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.nt
}

func (o *openBLAS) sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		// The operands may be empty slices; scale C as BLAS would.
		scaleRows(c, m, n, ldc, beta)
		return
	}
	C.mascot_sgemm(o.gemm, cbool(transA), cbool(transB), C.int(m), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(unsafe.Pointer(&a[0])), C.int(lda), (*C.float)(unsafe.Pointer(&b[0])), C.int(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// scaleRows sets C = beta·C over an m×n block (beta 0 writes zeros, so
// NaNs do not survive).
func scaleRows(c []float32, m, n, ldc int, beta float32) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
