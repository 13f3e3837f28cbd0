// Package computetest is the conformance suite every compute.Backend runs:
// one subtest per op, on seeded random inputs of awkward shapes (odd
// sizes, sequence lengths that are not a multiple of any block, GQA groups
// of 1, 2 and 4, rows of length 1, BF16 weights, rows without targets,
// views at offsets inside larger buffers, beta 0 over NaNs, accumulating
// outputs), each compared with a float64 reference written here, plus the
// interface's contracts: BF16 rounding, views, MemoryInUse, sticky errors
// and determinism.
//
// Run(t, open) checks one backend against the references; Compare(t, want,
// got, tol) runs the same cases on two backends and checks one against the
// other (the GPU check compares cuda with cpu). The suite reads no files
// and needs no network, so a prebuilt test binary carries it anywhere.
//
// Tolerances (Tolerances, Default): an output element passes when
// |got − ref| ≤ tol · (|ref| + rms(ref)), rms taken over the output.
//   - Exact: copies, gathers (BF16 widening is exact), BF16 rounding on
//     Upload, the untouched elements around a view, Dropout's zeros.
//   - F32 (default 1e-5): element-wise and row-wise ops on F32 data,
//     against float64 arithmetic on the same inputs.
//   - Products (default 1e-5): matrix products of F32 operands — Gemm,
//     Attention and its backward, the LM head with an F32 head; a backend
//     on TF32 or bf16 tensor cores states a looser one through RunWith.
//   - BF16 (default 1e-2): products with a BF16 weight (Gemm, the LM head
//     and its backward). The reference uses the weight's bf16 values
//     exactly and the other operand in full, so a backend that widens the
//     weight (the CPU) meets the F32 tolerance; 1e-2 also admits one that
//     rounds the other operand to bf16 for its tensor cores.
//   - SumSquares: 1e-12 (float64 accumulation).
//
// Layer: test support for trainer/compute's backends; imports compute and
// the standard library only.
package computetest
