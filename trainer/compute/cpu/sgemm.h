// The built-in single-precision matrix product of the CPU backend, used
// when OpenBLAS is absent. Row-major, C = alpha·op(A)·op(B) + beta·C.
//
// op(B) is first packed into panels of SGEMM_NR columns (zero-padded),
// SGEMM_KC rows of k at a time, so that a micro-kernel streams one panel
// from L1 while SGEMM_MR rows of C sit in vector registers; A is read in
// place (a broadcast per row and step of k, either layout). Every element
// of C is one accumulator summed over k in order, k blocks in order, then
// scaled: the bits depend on the data and the machine's clone (FMA or
// not), never on how the rows are split among threads.
#ifndef MASCOT_SGEMM_H
#define MASCOT_SGEMM_H

#define SGEMM_MR 6
#define SGEMM_NR 16
#define SGEMM_KC 256

// The floats mascot_sgemm_pack needs for op(B) of k×n.
long mascot_sgemm_packed_len(int k, int n);

// Packs op(B) (k×n; B stored n×k when trans_b) into bp.
void mascot_sgemm_pack(int trans_b, int k, int n, const float *b, int ldb, float *bp);

// Rows [m0, m1) of C = alpha·op(A)·op(B) + beta·C, op(B) packed by
// mascot_sgemm_pack. A is stored m×k, or k×m when trans_a. beta = 0 writes
// C without reading it.
void mascot_sgemm_rows(int trans_a, int m0, int m1, int n, int k, float alpha, const float *a, int lda,
		const float *bp, float beta, float *c, int ldc);

#endif
