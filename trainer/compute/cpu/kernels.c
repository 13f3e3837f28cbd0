#include <math.h>
#include <string.h>

#include "clones.h"
#include "kernels.h"

// fexp is e^x to about 2 ulp: Cephes' expf polynomial after reducing by
// round(x·log2 e)·ln 2, branch-free so that loops calling it vectorise.
// Below −87 it returns 0 (the true value is under FLT_MIN); above 88 it
// saturates at e^88.
INLINE float fexp(float x) {
	const float log2e = 1.44269504088896341f, c1 = 0.693359375f, c2 = -2.12194440e-4f, big = 12582912.0f;
	float xc = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
	float n = (xc * log2e + big) - big;
	float r = xc - n * c1 - n * c2;
	float p = 1.9875691500E-4f;
	p = p * r + 1.3981999507E-3f;
	p = p * r + 8.3334519073E-3f;
	p = p * r + 4.1665795894E-2f;
	p = p * r + 1.6666665459E-1f;
	p = p * r + 5.0000001201E-1f;
	float y = p * r * r + r + 1.0f;
	int e = ((int)n + 127) << 23;
	float s;
	memcpy(&s, &e, sizeof s);
	return x < -87.0f ? 0.0f : y * s;
}

INLINE float row_max(const float *x, int n) {
	float m = -INFINITY;
#pragma omp simd reduction(max : m)
	for (int j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
	return m;
}

// exp_shift_sum overwrites x[j] with e^(x[j] − m) and returns their sum.
INLINE float exp_shift_sum(float *x, int n, float m) {
	float s = 0;
#pragma omp simd reduction(+ : s)
	for (int j = 0; j < n; j++) {
		float e = fexp(x[j] - m);
		x[j] = e;
		s += e;
	}
	return s;
}

INLINE int row_keys(int first, int r, int len) {
	int n = first + r + 1;
	return n < len ? n : len;
}

CLONES void mascot_attn_softmax(float *s, int rows, int ld, int nk, int first, int len, float *lse) {
	for (int r = 0; r < rows; r++) {
		float *x = s + (long)r * ld;
		int n = row_keys(first, r, len);
		float m = row_max(x, n);
		float sum = exp_shift_sum(x, n, m);
		float inv = 1.0f / sum;
		int j = 0;
		for (; j < n; j++) x[j] *= inv;
		for (; j < nk; j++) x[j] = 0;
		lse[r] = m + logf(sum);
	}
}

CLONES void mascot_attn_grad(float *s, float *dp, int rows, int ld, int nk, int first, int len,
		const float *lse, float scale) {
	for (int r = 0; r < rows; r++) {
		float *p = s + (long)r * ld, *d = dp + (long)r * ld;
		int n = row_keys(first, r, len);
		float l = lse[r], delta = 0;
#pragma omp simd reduction(+ : delta)
		for (int j = 0; j < n; j++) {
			float e = fexp(p[j] - l);
			p[j] = e;
			delta += e * d[j];
		}
		int j = 0;
		for (; j < n; j++) d[j] = p[j] * (d[j] - delta) * scale;
		for (; j < nk; j++) p[j] = d[j] = 0;
	}
}

// row_sumexp is Σ e^(x[j] − m) without writing x.
INLINE float row_sumexp(const float *x, int n, float m) {
	float s = 0;
#pragma omp simd reduction(+ : s)
	for (int j = 0; j < n; j++) s += fexp(x[j] - m);
	return s;
}

CLONES void mascot_row_max_sumexp(const float *z, int rows, int n, int ld, float *mx, float *sum) {
	for (int r = 0; r < rows; r++) {
		const float *x = z + (long)r * ld;
		float m = row_max(x, n);
		mx[r] = m;
		sum[r] = row_sumexp(x, n, m);
	}
}

CLONES void mascot_head_grad(float *z, int rows, int n, int ld, const float *lse, const float *coef, const int *tgt) {
	for (int r = 0; r < rows; r++) {
		float *x = z + (long)r * ld;
		float l = lse[r], c = coef[r];
		for (int j = 0; j < n; j++) x[j] = -c * fexp(x[j] - l);
		if (tgt[r] >= 0) x[tgt[r]] += c;
	}
}

CLONES void mascot_swiglu(float *out, const float *g, const float *u, long n) {
	for (long i = 0; i < n; i++) {
		float x = g[i];
		out[i] = x / (1.0f + fexp(-x)) * u[i];
	}
}

CLONES void mascot_swiglu_bwd(float *dg, float *du, const float *dout, const float *g, const float *u, long n) {
	for (long i = 0; i < n; i++) {
		float x = g[i], y = u[i], d = dout[i];
		float s = 1.0f / (1.0f + fexp(-x));
		du[i] = d * x * s;
		dg[i] = d * y * s * (1.0f + x * (1.0f - s));
	}
}

INLINE double dot_d(const float *a, const float *b, int n) {
	double s = 0;
#pragma omp simd reduction(+ : s)
	for (int j = 0; j < n; j++) s += (double)a[j] * (double)b[j];
	return s;
}

CLONES double mascot_sumsq(const float *x, long n) {
	double s = 0;
#pragma omp simd reduction(+ : s)
	for (long j = 0; j < n; j++) s += (double)x[j] * (double)x[j];
	return s;
}

CLONES void mascot_rmsnorm(float *out, float *rstd, const float *x, const float *w, long rows, int dim, float eps) {
	for (long r = 0; r < rows; r++) {
		const float *xr = x + r * dim;
		float *o = out + r * dim;
		double ss = dot_d(xr, xr, dim);
		float rs = (float)(1.0 / sqrt(ss / dim + (double)eps));
		rstd[r] = rs;
		for (int j = 0; j < dim; j++) o[j] = (xr[j] * rs) * w[j];
	}
}

CLONES void mascot_rmsnorm_bwd(float *dx, const float *dy, const float *x, const float *w, const float *rstd,
		long rows, int dim, int accumulate) {
	for (long r = 0; r < rows; r++) {
		const float *xr = x + r * dim, *g = dy + r * dim;
		float *d = dx + r * dim;
		double dot = 0;
#pragma omp simd reduction(+ : dot)
		for (int j = 0; j < dim; j++) dot += (double)g[j] * (double)w[j] * (double)xr[j];
		float rs = rstd[r];
		float c = (float)(dot / dim) * rs * rs * rs;
		if (accumulate)
			for (int j = 0; j < dim; j++) d[j] += rs * g[j] * w[j] - c * xr[j];
		else
			for (int j = 0; j < dim; j++) d[j] = rs * g[j] * w[j] - c * xr[j];
	}
}

CLONES void mascot_rmsnorm_dw(double *acc, const float *dy, const float *x, const float *rstd, long rows, int dim, int lo, int hi) {
	for (long r = 0; r < rows; r++) {
		const float *g = dy + r * dim + lo, *xr = x + r * dim + lo;
		double rs = rstd[r];
		for (int j = 0; j < hi - lo; j++) acc[j] += (double)g[j] * (double)xr[j] * rs;
	}
}

CLONES void mascot_rope(float *x, const int *pos, const float *cs, const float *sn, long rows, int heads, int dim, float sign) {
	int half = dim / 2;
	for (long r = 0; r < rows; r++) {
		const float *c = cs + (long)pos[r] * half, *s = sn + (long)pos[r] * half;
		for (int h = 0; h < heads; h++) {
			float *v = x + (r * heads + h) * dim;
			for (int i = 0; i < half; i++) {
				float x1 = v[i], x2 = v[i + half], si = sign * s[i];
				v[i] = x1 * c[i] - x2 * si;
				v[i + half] = x2 * c[i] + x1 * si;
			}
		}
	}
}

typedef unsigned int __attribute__((may_alias)) u32a;

CLONES void mascot_bf16_to_f32(float *dst, const unsigned short *src, long n) {
	u32a *d = (u32a *)dst;
	for (long i = 0; i < n; i++) d[i] = (unsigned int)src[i] << 16;
}

// compute.Keep's draw (SplitMix64 of seed and the element's index, its
// top 24 bits as u in [0, 1)), element i of the op being base+i.
CLONES void mascot_dropout(float *dst, const float *src, long n, long base, unsigned long long seed, float p, float scale) {
	for (long i = 0; i < n; i++) {
		unsigned long long z = seed + (unsigned long long)(base + i + 1) * 0x9e3779b97f4a7c15ULL;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		float u = (float)(z >> 40) * (1.0f / 16777216.0f);
		dst[i] = u >= p ? src[i] * scale : 0.0f;
	}
}
