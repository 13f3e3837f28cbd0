//go:build openblas && cgo && !cuda

package autodiff

// #cgo LDFLAGS: -lopenblas
import "C"

import "gonum.org/v1/netlib/blas/netlib"

// With -tags openblas every graph's matrix products (gorgonia and its
// tensor package) call OpenBLAS through gonum's netlib binding.
func init() {
	blasImpls["openblas"] = netlib.Implementation{}
	useBLAS("openblas")
}
