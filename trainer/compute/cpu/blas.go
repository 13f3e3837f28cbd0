package cpu

import (
	"fmt"
	"os"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// EnvBLAS names the variable that chooses the BLAS: "builtin" (the
// default: the backend's own sgemm, sgemm.c), "openblas" (loaded at run
// time; an error when it cannot be) or "gonum" (gonum's pure-Go BLAS).
const EnvBLAS = "MASCOT_BLAS"

// blasLib is the one BLAS routine the backend needs, row-major, with the
// library's own thread count.
type blasLib interface {
	name() string
	// describe names the library as it reports itself (OpenBLAS's build
	// configuration and core), for Describe.
	describe() string
	sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	// setThreads sets how many threads one sgemm call may use; gonum's
	// count is GOMAXPROCS and cannot be set.
	setThreads(n int)
	threads() int
}

// selectBLAS returns the BLAS that req (or, when req is empty, EnvBLAS)
// names.
func selectBLAS(req string) (blasLib, error) {
	src := "Options.BLAS"
	if req == "" {
		req, src = os.Getenv(EnvBLAS), EnvBLAS
	}
	switch req {
	case "", "builtin":
		return newBuiltinBLAS(runtime.GOMAXPROCS(0)), nil
	case "openblas":
		ob, err := loadOpenBLAS()
		if err != nil {
			return nil, fmt.Errorf("%s=openblas: loading OpenBLAS: %w", src, err)
		}
		return ob, nil
	case "gonum":
		return gonumBLAS{}, nil
	}
	return nil, fmt.Errorf("%s=%q: unknown BLAS (want builtin, openblas or gonum; empty for builtin)", src, req)
}

// gonumBLAS is gonum's pure-Go BLAS (its float32 kernels are assembly
// dot and axpy loops); it parallelises over 64×64 blocks of C with
// GOMAXPROCS goroutines, each block summed over k in one order, so its
// results do not depend on scheduling.
type gonumBLAS struct{}

func (gonumBLAS) name() string     { return "gonum" }
func (gonumBLAS) describe() string { return "gonum.org/v1/gonum/blas/gonum" }
func (gonumBLAS) setThreads(int)   {}
func (gonumBLAS) threads() int     { return runtime.GOMAXPROCS(0) }
func (gonumBLAS) sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gonum.Implementation{}.Sgemm(trans(transA), trans(transB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}
