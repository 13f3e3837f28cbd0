package cuda

import (
	"embed"
	"strings"
)

// The kernels' CUDA C, one translation unit in kernelFiles order (common
// definitions first). NVRTC compiles it with no headers at all.
//
//go:embed kernels/*.cuh kernels/*.cu
var kernelFS embed.FS

var kernelFiles = []string{"common.cuh", "elementwise.cu", "index.cu", "norm.cu", "attention.cu", "lmhead.cu", "adamw.cu"}

// kernelSource is the text NVRTC compiles (and whose hash names the cached
// PTX). Each file is preceded by a #line directive, so compiler messages
// name the file and line in kernels/.
func kernelSource() string {
	var b strings.Builder
	for _, f := range kernelFiles {
		src, err := kernelFS.ReadFile("kernels/" + f)
		if err != nil {
			panic(err) // embedded at build time: a missing file is a build defect
		}
		b.WriteString("#line 1 \"" + f + "\"\n")
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// argKind is the C type of one kernel parameter.
type argKind uint8

const (
	aPtr argKind = iota + 1 // a device pointer (devPtr)
	aI32                    // int (Go int, range-checked)
	aI64                    // long long (Go int)
	aU64                    // unsigned long long (Go uint64)
	aF32                    // float (Go float32)
)

func (k argKind) String() string {
	switch k {
	case aPtr:
		return "pointer"
	case aI32:
		return "int"
	case aI64:
		return "long long"
	case aU64:
		return "unsigned long long"
	case aF32:
		return "float"
	}
	return "?"
}

// size is the parameter's size and alignment in bytes.
func (k argKind) size() int {
	if k == aI32 || k == aF32 {
		return 4
	}
	return 8
}

func sig(ks ...argKind) []argKind { return ks }

func ptrs(n int) []argKind {
	out := make([]argKind, n)
	for i := range out {
		out[i] = aPtr
	}
	return out
}

func cat(parts ...[]argKind) []argKind {
	var out []argKind
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// kernelSigs declares every kernel the backend launches with its
// parameters; launches are checked against it, and a test checks it
// against the PTX that clang makes of kernels/ (names, count and types).
var kernelSigs = map[string][]argKind{
	"k_add":              sig(aPtr, aPtr, aI64),
	"k_axpy":             sig(aPtr, aF32, aPtr, aI64),
	"k_scale":            sig(aPtr, aF32, aI64),
	"k_swiglu":           cat(ptrs(3), sig(aI64)),
	"k_swiglu_bwd":       cat(ptrs(5), sig(aI64)),
	"k_dropout":          sig(aPtr, aPtr, aF32, aF32, aU64, aI64),
	"k_to_bf16":          sig(aPtr, aPtr, aI64, aI32, aI64),
	"k_to_f32":           sig(aPtr, aPtr, aI64, aI32, aI64),
	"k_batch_ptrs":       sig(aPtr, aI32, aI32, aI32, aU64, aI64, aI64, aU64, aI64, aI64, aU64, aI64, aI64),
	"k_sumsq_part":       sig(aPtr, aPtr, aI64),
	"k_sum_final":        sig(aPtr, aPtr, aI32),
	"k_scale_rows":       sig(aPtr, aI32, aI32, aI64, aF32),
	"k_gather_f32":       cat(ptrs(3), sig(aI32, aI32)),
	"k_gather_bf16":      cat(ptrs(3), sig(aI32, aI32)),
	"k_scatter_add":      cat(ptrs(5), sig(aI32, aI32)),
	"k_rope":             cat(ptrs(4), sig(aI32, aI32, aI32, aI32)),
	"k_rmsnorm":          cat(ptrs(4), sig(aI32, aI32, aF32)),
	"k_rmsnorm_bwd_dx":   cat(ptrs(5), sig(aI32, aI32, aI32)),
	"k_rmsnorm_bwd_dw":   cat(ptrs(4), sig(aI32, aI32, aI32)),
	"k_colsum_add":       cat(ptrs(2), sig(aI32, aI32)),
	"k_attn_softmax":     cat(ptrs(4), sig(aI32, aI32, aI32, aI32, aI32, aI32, aI32)),
	"k_attn_softmax_f32": cat(ptrs(3), sig(aI32, aI32, aI32, aI32, aI32, aI32, aI32)),
	"k_attn_bwd_ds":      cat(ptrs(6), sig(aI32, aI32, aI32, aI32, aI32, aI32, aI32)),
	"k_attn_bwd_ds_f32":  cat(ptrs(4), sig(aI32, aI32, aI32, aI32, aI32, aI32, aI32)),
	"k_lmhead_fwd":       cat(ptrs(4), sig(aI32, aI32, aI32)),
	"k_lmhead_bwd":       cat(ptrs(5), sig(aI32, aI32, aI32)),
	"k_adamw":            cat(ptrs(4), sig(aI64), sig(aF32, aF32, aF32, aF32, aF32, aF32, aF32, aF32, aF32)),
}
