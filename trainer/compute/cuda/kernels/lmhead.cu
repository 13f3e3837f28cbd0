// The LM head's element-wise parts over one block of rows row0.. of the
// logits Z = InvTemp * hidden * head^T ([rows, V], from cuBLAS).

// k_lmhead_fwd: lse = logsumexp(Z_row), logp = Z[target] - lse; a row
// without a target (negative) gets 0 for both. One block per row.
extern "C" __global__ void k_lmhead_fwd(float* logp, float* lse, const float* Z, const int* targets,
                                        int rows, int V, int row0) {
  __shared__ float sh[32];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const int i = row0 + r, t = targets[i];
    if (t < 0) {  // the whole block takes this branch
      if (threadIdx.x == 0) { logp[i] = 0; lse[i] = 0; }
      continue;
    }
    const float* z = Z + (long long)r * V;
    float m = -__int_as_float(0x7f800000);
    for (int k = threadIdx.x; k < V; k += blockDim.x) m = fmaxf(m, z[k]);
    m = block_max(m, sh);
    float l = 0;
    for (int k = threadIdx.x; k < V; k += blockDim.x) l += expf(z[k] - m);
    l = block_sum(l, sh);
    if (threadIdx.x == 0) {
      const float L = m + logf(l);
      lse[i] = L;
      logp[i] = z[t] - L;
    }
  }
}

// k_lmhead_bwd overwrites Z with dZ = seed*(onehot(target) - softmax(Z))
// (zero for rows without a target) and, when zb is not 0, writes dZ
// rounded to bf16 into zb too (the operand of the product with a BF16
// head).
extern "C" __global__ void k_lmhead_bwd(float* Z, bf16_t* zb, const float* lse, const int* targets,
                                        const float* seed, int rows, int V, int row0) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const int i = row0 + r, t = targets[i];
    const float L = lse[i], sd = t < 0 ? 0.0f : seed[i];
    float* z = Z + (long long)r * V;
    bf16_t* w = zb ? zb + (long long)r * V : 0;
    for (int k = threadIdx.x; k < V; k += blockDim.x) {
      const float d = t < 0 ? 0.0f : sd * ((k == t ? 1.0f : 0.0f) - expf(z[k] - L));
      z[k] = d;
      if (w) w[k] = f2bf(d);
    }
  }
}
