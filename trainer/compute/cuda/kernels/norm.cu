// RMSNorm and its backward. One block per row; the weight gradient sums
// rows in fixed chunks, then the chunks in order (k_colsum_add).

extern "C" __global__ void k_rmsnorm(float* out, float* rstd, const float* x, const float* w,
                                     int rows, int dim, float eps) {
  __shared__ float sh[32];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + (long long)r * dim;
    float ss = 0;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) ss += xr[j] * xr[j];
    ss = block_sum(ss, sh);
    const float rs = 1.0f / sqrtf(ss / (float)dim + eps);
    if (threadIdx.x == 0) rstd[r] = rs;
    float* o = out + (long long)r * dim;  // may be x: each thread rewrites only what it read
    for (int j = threadIdx.x; j < dim; j += blockDim.x) o[j] = xr[j] * rs * w[j];
  }
}

// k_rmsnorm_bwd_dx: dx = r*w*dy - r^3/dim * x * sum(w*dy*x), added when
// accumulate is set.
extern "C" __global__ void k_rmsnorm_bwd_dx(float* dx, const float* dy, const float* x, const float* w,
                                            const float* rstd, int rows, int dim, int accumulate) {
  __shared__ float sh[32];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const long long o = (long long)r * dim;
    float dot = 0;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) dot += w[j] * dy[o + j] * x[o + j];
    dot = block_sum(dot, sh);
    const float rs = rstd[r];
    const float c = rs * rs * rs * dot / (float)dim;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) {
      const float g = rs * w[j] * dy[o + j] - c * x[o + j];
      dx[o + j] = accumulate ? dx[o + j] + g : g;
    }
  }
}

// k_rmsnorm_bwd_dw: part[chunk, j] = sum over the chunk's rows of
// dy*x*rstd; grid.y is the chunk.
extern "C" __global__ void k_rmsnorm_bwd_dw(float* part, const float* dy, const float* x, const float* rstd,
                                            int rows, int dim, int chunk) {
  const int r0 = blockIdx.y * chunk, r1 = min(rows, r0 + chunk);
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < dim; j += gridDim.x * blockDim.x) {
    float s = 0;
    for (int r = r0; r < r1; r++) s += dy[(long long)r * dim + j] * x[(long long)r * dim + j] * rstd[r];
    part[(long long)blockIdx.y * dim + j] = s;
  }
}

// k_colsum_add: dst[j] += sum over c of part[c, j], c in order.
extern "C" __global__ void k_colsum_add(float* dst, const float* part, int nparts, int dim) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < dim; j += gridDim.x * blockDim.x) {
    float s = 0;
    for (int c = 0; c < nparts; c++) s += part[(long long)c * dim + j];
    dst[j] += s;
  }
}
