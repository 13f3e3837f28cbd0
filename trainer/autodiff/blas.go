//go:build !cuda

package autodiff

import (
	"sort"

	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// BLAS names the matrix-multiply library the graphs run on: "gonum"
// (pure Go, the default build) or "openblas" (built with -tags openblas,
// which needs cgo and libopenblas-dev).
var BLAS = "gonum"

// blasImpls are the BLAS implementations this build offers, by name.
var blasImpls = map[string]G.BLAS{"gonum": gonum.Implementation{}}

// useBLAS makes every graph (in every Model) multiply with the named
// implementation.
func useBLAS(name string) {
	G.Use(blasImpls[name])
	BLAS = name
}

// blasNames lists the implementations of this build, sorted.
func blasNames() []string {
	var out []string
	for n := range blasImpls {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
