#include <string.h>

#include "clones.h"
#include "sgemm.h"

#define NR SGEMM_NR
#define KC SGEMM_KC

// One row of a C tile: AVX-512 holds it in one register, AVX2 in two, the
// baseline in four. memcpy loads and stores need no alignment.
typedef float v16 __attribute__((vector_size(NR * sizeof(float))));

INLINE v16 load16(const float *p) {
	v16 v;
	memcpy(&v, p, sizeof v);
	return v;
}

INLINE void store16(float *p, v16 v) { memcpy(p, &v, sizeof v); }

INLINE int imin(int a, int b) { return a < b ? a : b; }

long mascot_sgemm_packed_len(int k, int n) { return (long)k * ((n + NR - 1) / NR) * NR; }

CLONES void mascot_sgemm_pack(int trans_b, int k, int n, const float *b, int ldb, float *bp) {
	int np = (n + NR - 1) / NR;
	for (int p0 = 0; p0 < k; p0 += KC) {
		int kcb = imin(KC, k - p0);
		float *blk = bp + (long)p0 * np * NR;
		for (int jp = 0; jp < np; jp++) {
			float *dst = blk + (long)jp * kcb * NR;
			int j0 = jp * NR, nr = imin(NR, n - j0);
			if (!trans_b) {
				for (int p = 0; p < kcb; p++) {
					const float *src = b + (long)(p0 + p) * ldb + j0;
					float *d = dst + p * NR;
					if (nr == NR) {
						memcpy(d, src, NR * sizeof(float));
						continue;
					}
					for (int j = 0; j < NR; j++) d[j] = j < nr ? src[j] : 0.0f;
				}
				continue;
			}
			// Stored transposed: column j of op(B) is row j0+j of b.
			if (nr < NR) memset(dst, 0, (size_t)kcb * NR * sizeof(float));
			for (int j = 0; j < nr; j++) {
				const float *src = b + (long)(j0 + j) * ldb + p0;
				for (int p = 0; p < kcb; p++) dst[p * NR + j] = src[p];
			}
		}
	}
}

// tile computes mr rows × nr columns of C from kcb steps of k: A element
// (r, p) at ap[r·rs + p·ps], the panel's row p at bp + p·NR. The first k
// block writes alpha·acc + beta·C (not reading C when beta is 0); later
// blocks add alpha·acc. Full and partial tiles form each element alike, so
// its bits do not depend on where the tile edges fall.
INLINE void tile(const int mr, int kcb, const float *ap, long rs, long ps, const float *bp, float *c, long ldc,
		int nr, float alpha, float beta, int first) {
	v16 acc[SGEMM_MR];
	for (int r = 0; r < mr; r++) acc[r] = (v16){0};
	for (int p = 0; p < kcb; p++) {
		v16 bv = load16(bp + (long)p * NR);
		for (int r = 0; r < mr; r++) acc[r] += ap[r * rs] * bv;
		ap += ps;
	}
	for (int r = 0; r < mr; r++) {
		float *cr = c + r * ldc;
		v16 old = {0};
		if (nr == NR && (!first || beta != 0.0f))
			old = load16(cr);
		else if (!first || beta != 0.0f)
			memcpy(&old, cr, (size_t)nr * sizeof(float));
		v16 x;
		if (!first) {
			x = acc[r] * alpha + old;
		} else if (beta != 0.0f) {
			// beta·C is formed on its own (the empty asm keeps the compiler
			// from fusing it into the sum), so the only contraction left is
			// fma(acc, alpha, ·) in every tile shape.
			v16 y = beta * old;
			__asm__("" : "+m"(y));
			x = acc[r] * alpha + y;
		} else {
			x = acc[r] * alpha;
		}
		if (nr == NR)
			store16(cr, x);
		else
			memcpy(cr, &x, (size_t)nr * sizeof(float));
	}
}

CLONES void mascot_sgemm_rows(int trans_a, int m0, int m1, int n, int k, float alpha, const float *a, int lda,
		const float *bp, float beta, float *c, int ldc) {
	int np = (n + NR - 1) / NR;
	long rs = trans_a ? 1 : lda, ps = trans_a ? lda : 1;
	for (int p0 = 0; p0 < k; p0 += KC) {
		int kcb = imin(KC, k - p0), first = p0 == 0;
		const float *blk = bp + (long)p0 * np * NR;
		for (int jp = 0; jp < np; jp++) {
			const float *pan = blk + (long)jp * kcb * NR;
			int j0 = jp * NR, nr = imin(NR, n - j0);
			for (int i = m0; i < m1; i += SGEMM_MR) {
				const float *ap = a + i * rs + p0 * ps;
				float *ct = c + (long)i * ldc + j0;
				switch (imin(SGEMM_MR, m1 - i)) {
				case 6: tile(6, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				case 5: tile(5, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				case 4: tile(4, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				case 3: tile(3, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				case 2: tile(2, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				default: tile(1, kcb, ap, rs, ps, pan, ct, ldc, nr, alpha, beta, first); break;
				}
			}
		}
	}
}
