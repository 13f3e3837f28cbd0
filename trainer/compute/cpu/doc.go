// Package cpu is the CPU implementation of compute.Backend: matrix
// products through its own register-blocked sgemm (sgemm.c), or OpenBLAS
// loaded at run time, or gonum's pure-Go BLAS (MASCOT_BLAS=openblas|gonum),
// and every other op as Go loops and C kernels parallel over rows on a
// fixed partition, so that a result depends on the thread count and
// never on scheduling.
//
// Layer: trainer, implementing trainer/compute for trainer/net; it imports
// only compute, internal/dl and gonum. docs/design/trainer-compute.md
// describes what each op computes, its tolerances and how the BLAS and
// threads are chosen.
package cpu
