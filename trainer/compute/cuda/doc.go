// Package cuda is the compute.Backend of the trainer on one NVIDIA GPU,
// built with -tags cuda. It needs no CUDA headers or libraries to build:
// the few driver, cuBLAS and NVRTC prototypes it calls are declared in its
// cgo preamble (cdecl.go), and the libraries are opened at run time
// through internal/dl.
//
// Layer: trainer, beside trainer/compute/cpu and below the network
// (trainer/net). It imports compute, internal/dl and safetensors (bfloat16
// rounding) only.
//
// # Libraries
//
// The driver (libcuda.so.1), cuBLASLt and cuBLAS (libcublasLt.so.13 and
// libcublas.so.13, or .12) and NVRTC (libnvrtc.so.13 or .12) are searched
// for on the loader's standard paths, then in the directories of
// MASCOT_CUDA_LIBS (colon separated). A library that is missing is an
// error naming every file tried and the loader's reason. Where NVIDIA's
// pip wheels hold cuBLAS and NVRTC (a PyTorch environment), set
//
//	MASCOT_CUDA_LIBS=$(find "$(python3 -c 'import site; print(site.getsitepackages()[0])')/nvidia" \
//	    -name 'libcublas*.so*' -o -name 'libnvrtc*.so*' | xargs -n1 dirname | sort -u | paste -sd:)
//
// (scripts/gpu-check finds them the same way). MASCOT_CUDA_DEVICE picks the
// device ordinal (default 0).
//
// # Kernels
//
// The element-wise and row-wise kernels are CUDA C in kernels/, embedded
// in the binary and compiled by NVRTC at the first New of a process for
// the device's compute capability; the PTX is cached under the user's
// cache directory (mascot/cuda-ptx/<sha256>.ptx, keyed by the source, the
// options and the NVRTC version), so later processes skip the compile.
// kernelSigs declares each kernel's parameters; every launch is checked
// against it, and TestKernelsCompileWithClang compiles kernels/ with
// clang's CUDA front end (no SDK needed) and checks the table against the
// PTX, so the sources are compiled in CI although no GPU is.
//
// # Ops
//
// Tensors live in device memory for their whole life; freed blocks go to
// a per-backend pool (powers of two to 1 MiB, then 2 MiB steps) and are
// reused in stream order. All ops run on one stream. Products go through
// cublasGemmEx with float32 accumulation (row-major operands passed as
// the column-major transpose). With Precision BF16 (the default) an F32
// operand of a product with a BF16 weight is rounded to bfloat16 for the
// tensor cores (the last two conversions are cached, so q, k and v reuse
// one), attention's scores S = Scale·Q·Kᵀ and its other products run in
// bf16 over chunks of (row, kv head) pairs with cublasGemmBatchedEx, and
// the LM head rounds the hidden rows; with Precision F32 every product is
// float32. Attention keeps one log-sum-exp per query and the backward
// recomputes the probabilities from it; the [T, T] scores of a chunk and
// the LM head's [rows, V] logits live in scratch bounded by
// Options.ScratchBytes. Index checks run on the host: every I32 tensor
// has a host mirror (only Upload, Zero and Copy write I32), so a bad token
// id, position, length or target is a sticky error before anything runs,
// as on the CPU. ScatterAdd sorts its indices on the host and adds each
// destination row's sources in index order. Every reduction (RMSNorm,
// softmax, SumSquares in float64, the norm weights' gradient) has a fixed
// order, so results are deterministic.
//
// # Tests
//
// Without a GPU the package's tests check what runs on the host: library
// search and its errors, argument packing, the PTX cache, the scatter
// plan, AdamW's scalars, and the kernels' source through clang. The tests
// that need a GPU are built with -tags cuda and run when MASCOT_GPU=1;
// otherwise they skip saying so. scripts/gpu-check runs them, prebuilt, on
// a GPU machine.
package cuda
