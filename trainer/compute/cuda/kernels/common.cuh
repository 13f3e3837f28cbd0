// Shared definitions of the mascot CUDA kernels. The sources are compiled
// by NVRTC with no headers at all, so everything beyond NVRTC's built-ins
// (threadIdx, __syncthreads, __shfl_xor_sync, expf, ...) is defined here.
// Every kernel is extern "C" so the Go side finds it by its plain name, and
// every reduction runs in a fixed order (warp shuffles in a fixed pattern,
// then warps in index order), so results never depend on scheduling.

typedef unsigned short bf16_t;
typedef unsigned long long u64;

// bf2f widens bfloat16 bits exactly.
static __device__ __forceinline__ float bf2f(bf16_t h) {
  return __uint_as_float(((unsigned)h) << 16);
}

// f2bf rounds to nearest even, as the host does on Upload; NaN stays a
// quiet NaN.
static __device__ __forceinline__ bf16_t f2bf(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (bf16_t)(u >> 16);
}

// block_sum returns the sum of v over the block to every thread. blockDim.x
// must be a multiple of 32 and at most 1024; sh holds 32 floats.
static __device__ float block_sum(float v, float* sh) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
  __syncthreads();  // an earlier call may still be reading sh
  if (l == 0) sh[w] = v;
  __syncthreads();
  v = (l < (int)(blockDim.x >> 5)) ? sh[l] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// block_max is block_sum with max; lanes past the block's warps read -inf.
static __device__ float block_max(float v, float* sh) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
  __syncthreads();
  if (l == 0) sh[w] = v;
  __syncthreads();
  v = (l < (int)(blockDim.x >> 5)) ? sh[l] : -__int_as_float(0x7f800000);
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// GRID_STRIDE walks i over [0, n) with every thread of the grid.
#define GRID_STRIDE(i, n) \
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (long long)gridDim.x * blockDim.x)
