#include <math.h>
#include <string.h>

#include "kernels.h"

#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define LANES 16

// fexp is e^x to about 2 ulp: Cephes' expf polynomial after reducing by
// round(x·log2 e)·ln 2, branch-free so that loops calling it vectorise.
// Below −87 it returns 0 (the true value is under FLT_MIN); above 88 it
// saturates at e^88.
static inline float fexp(float x) {
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

static inline float row_max(const float *x, int n) {
	float m[LANES];
	for (int l = 0; l < LANES; l++) m[l] = -INFINITY;
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int l = 0; l < LANES; l++) m[l] = x[j + l] > m[l] ? x[j + l] : m[l];
	float r = -INFINITY;
	for (; j < n; j++) r = x[j] > r ? x[j] : r;
	for (int l = 0; l < LANES; l++) r = m[l] > r ? m[l] : r;
	return r;
}

// exp_shift_sum overwrites x[j] with e^(x[j] − m) and returns their sum.
static inline float exp_shift_sum(float *x, int n, float m) {
	float acc[LANES] = {0};
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int l = 0; l < LANES; l++) {
			float e = fexp(x[j + l] - m);
			x[j + l] = e;
			acc[l] += e;
		}
	float s = 0;
	for (; j < n; j++) {
		float e = fexp(x[j] - m);
		x[j] = e;
		s += e;
	}
	for (int l = 0; l < LANES; l++) s += acc[l];
	return s;
}

static inline int row_keys(int first, int r, int len) {
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
		float l = lse[r];
		float acc[LANES] = {0};
		int j = 0;
		for (; j + LANES <= n; j += LANES)
			for (int k = 0; k < LANES; k++) {
				float e = fexp(p[j + k] - l);
				p[j + k] = e;
				acc[k] += e * d[j + k];
			}
		float delta = 0;
		for (; j < n; j++) {
			float e = fexp(p[j] - l);
			p[j] = e;
			delta += e * d[j];
		}
		for (int k = 0; k < LANES; k++) delta += acc[k];
		for (j = 0; j < n; j++) d[j] = p[j] * (d[j] - delta) * scale;
		for (; j < nk; j++) p[j] = d[j] = 0;
	}
}

// row_sumexp is Σ e^(x[j] − m) without writing x.
static inline float row_sumexp(const float *x, int n, float m) {
	float acc[LANES] = {0};
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int l = 0; l < LANES; l++) acc[l] += fexp(x[j + l] - m);
	float s = 0;
	for (; j < n; j++) s += fexp(x[j] - m);
	for (int l = 0; l < LANES; l++) s += acc[l];
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
