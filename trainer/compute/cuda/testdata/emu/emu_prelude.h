// What the kernels of kernels/ need from CUDA, for compiling them as host
// C++ into the emulator (emu.cc): the execution-space keywords vanish,
// __shared__ variables are static (a block's threads are fibers of one
// OS thread and blocks run one after another), threadIdx and the others
// are globals the scheduler sets, and the device functions are the C
// library's.
#pragma once
#include <cmath>
#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct emu_dim3 {
  unsigned x, y, z;
};
extern emu_dim3 emu_tid, emu_bid, emu_bdim, emu_gdim;
#define threadIdx emu_tid
#define blockIdx emu_bid
#define blockDim emu_bdim
#define gridDim emu_gdim

void __syncthreads();
float __shfl_xor_sync(unsigned mask, float v, int lane_mask);

inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline int min(int a, int b) { return a < b ? a : b; }
