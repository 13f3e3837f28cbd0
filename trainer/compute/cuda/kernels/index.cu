// Gathers, the deterministic scatter-add and RoPE. Indices were checked by
// the host (it keeps a copy of every I32 tensor), so kernels trust them.

// k_gather_f32: out[i, :] = src[idx[i], :]; grid.y walks rows.
extern "C" __global__ void k_gather_f32(float* out, const float* src, const int* idx, int n, int dim) {
  for (int i = blockIdx.y; i < n; i += gridDim.y) {
    const long long s = (long long)idx[i] * dim, d = (long long)i * dim;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < dim; c += gridDim.x * blockDim.x)
      out[d + c] = src[s + c];
  }
}

extern "C" __global__ void k_gather_bf16(float* out, const bf16_t* src, const int* idx, int n, int dim) {
  for (int i = blockIdx.y; i < n; i += gridDim.y) {
    const long long s = (long long)idx[i] * dim, d = (long long)i * dim;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < dim; c += gridDim.x * blockDim.x)
      out[d + c] = bf2f(src[s + c]);
  }
}

// k_scatter_add adds, for each distinct destination row rows[u], the
// source rows srcs[starts[u] .. starts[u+1]) in increasing index order,
// starting from the row's value: the same additions, in the same order, as
// dst[idx[i]] += src[i] for i = 0, 1, ... (the host sorted them stably).
extern "C" __global__ void k_scatter_add(float* dst, const float* src, const int* rows,
                                         const int* starts, const int* srcs, int nu, int dim) {
  for (int u = blockIdx.y; u < nu; u += gridDim.y) {
    float* d = dst + (long long)rows[u] * dim;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < dim; c += gridDim.x * blockDim.x) {
      float acc = d[c];
      for (int k = starts[u]; k < starts[u + 1]; k++) acc += src[(long long)srcs[k] * dim + c];
      d[c] = acc;
    }
  }
}

// k_rope rotates pairs (i, i + dim/2) of every head of every row by the
// angle of the row's position; inverse rotates by the negative angle.
extern "C" __global__ void k_rope(float* x, const int* pos, const float* cosT, const float* sinT,
                                  int rows, int heads, int dim, int inverse) {
  const int half = dim / 2;
  const long long n = (long long)rows * heads * half;
  GRID_STRIDE(e, n) {
    const int i = (int)(e % half);
    const long long rh = e / half;
    const int r = (int)(rh / heads);
    const long long base = rh * dim;
    const long long t = (long long)pos[r] * half + i;
    const float c = cosT[t], s = inverse ? -sinT[t] : sinT[t];
    const float a = x[base + i], b = x[base + i + half];
    x[base + i] = a * c - b * s;
    x[base + i + half] = b * c + a * s;
  }
}
