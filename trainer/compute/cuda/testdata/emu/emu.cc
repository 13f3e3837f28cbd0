// A host emulation of the parts of the CUDA driver, cuBLAS and NVRTC that
// trainer/compute/cuda calls, for its tests on machines without a GPU.
// Built as one shared library and installed under the sonames the backend
// searches for (libcuda.so.1, libcublasLt.so.13, libcublas.so.13,
// libnvrtc.so.13), it lets the backend run unchanged: dlopen, dlsym, the
// cgo trampolines, argument packing, cuBLAS's column-major calls and the
// chunking all run as on a GPU, and the kernels of kernels/ run as host
// C++ (compiled into this library by the test, with emu_prelude.h).
//
// It is a test stand-in, not a GPU: device memory is host memory, streams
// are synchronous, a block's threads are fibers (ucontext) switched at
// __syncthreads and warp shuffles, and products accumulate in double. It
// checks what a real device would reject (cuBLAS's leading-dimension and
// type rules, kernel names, deadlocked barriers) and fills new device
// memory with NaN bytes, so code that reads memory it never wrote fails.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csetjmp>
#include <functional>
#include <map>
#include <string>
#include <ucontext.h>
#include <vector>

#include "emu_prelude.h"

// The kernels, from the generated translation unit; fibers says the
// kernel waits at barriers or shuffles, so its threads need fibers (the
// others run each thread as a plain call, much faster).
using Launcher = std::function<void(void**)>;
struct Kernel {
  Launcher run;
  bool fibers;
};
const std::map<std::string, Kernel>& emu_kernels();

emu_dim3 emu_tid, emu_bid, emu_bdim, emu_gdim;

namespace {

// ---- The thread model ----

struct Fiber {
  ucontext_t ctx;
  jmp_buf jb;
  std::vector<char> stack;
  bool started, done;
};

struct Barrier {
  unsigned arrived = 0, gen = 0;
};

// Switching between fibers uses _setjmp/_longjmp (no signal-mask system
// call, unlike swapcontext); ucontext only starts a fiber on its stack.
std::vector<Fiber> fibers;
jmp_buf sched_jb;
int cur = -1;
bool in_fibers;
const Launcher* cur_kernel;
void** cur_params;
Barrier block_bar;
std::vector<Barrier> warp_bars;
std::vector<float> warp_vals;
const char* cur_name = "";
// progress counts arrivals at barriers and finished threads, so a round
// of the scheduler that changes nothing is a deadlock.
unsigned long long progress;

void fiber_main() {
  (*cur_kernel)(cur_params);
  fibers[cur].done = true;
  progress++;
  _longjmp(sched_jb, 1);
}

void yield() {
  if (!_setjmp(fibers[cur].jb)) _longjmp(sched_jb, 1);
}

void wait_at(Barrier& b, unsigned n) {
  if (!in_fibers) {
    fprintf(stderr, "emu: kernel %s waits at a barrier but was registered without fibers\n", cur_name);
    abort();
  }
  const unsigned gen = b.gen;
  progress++;
  if (++b.arrived == n) {
    b.arrived = 0;
    b.gen++;
    return;
  }
  while (b.gen == gen) yield();
}

void resume(unsigned t) {
  Fiber& f = fibers[t];
  cur = (int)t;
  emu_tid = emu_dim3{t, 0, 0};
  if (_setjmp(sched_jb)) return;  // the fiber yielded or finished
  if (!f.started) {
    f.started = true;
    setcontext(&f.ctx);
  }
  _longjmp(f.jb, 1);
}

// run_block runs every thread of one block to its end: as plain calls for
// a kernel without barriers, else as fibers switched round robin whenever
// one waits.
void run_block(unsigned nthreads, bool use_fibers) {
  if (!use_fibers) {
    in_fibers = false;
    for (unsigned t = 0; t < nthreads; t++) {
      emu_tid = emu_dim3{t, 0, 0};
      (*cur_kernel)(cur_params);
    }
    return;
  }
  in_fibers = true;
  if (fibers.size() < nthreads) fibers.resize(nthreads);
  warp_bars.assign((nthreads + 31) / 32, Barrier{});
  warp_vals.assign(nthreads + 32, 0.0f);
  block_bar = Barrier{};
  for (unsigned t = 0; t < nthreads; t++) {
    Fiber& f = fibers[t];
    if (f.stack.empty()) f.stack.resize(256 << 10);
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.data();
    f.ctx.uc_stack.ss_size = f.stack.size();
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, fiber_main, 0);
    f.started = f.done = false;
  }
  unsigned left = nthreads;
  while (left > 0) {
    const unsigned long long start = progress;
    for (unsigned t = 0; t < nthreads; t++) {
      if (fibers[t].done) continue;
      resume(t);
      if (fibers[t].done) left--;
    }
    if (left > 0 && progress == start) {
      fprintf(stderr, "emu: kernel %s deadlocked at a barrier (block %u, %u threads left)\n", cur_name, emu_bid.x, left);
      abort();
    }
  }
  cur = -1;
  in_fibers = false;
}

}  // namespace

void __syncthreads() { wait_at(block_bar, emu_bdim.x); }

float __shfl_xor_sync(unsigned, float v, int mask) {
  const unsigned t = emu_tid.x, w = t / 32, l = t % 32;
  warp_vals[w * 32 + l] = v;
  wait_at(warp_bars[w], 32);
  const float r = warp_vals[w * 32 + (l ^ (unsigned)mask)];
  wait_at(warp_bars[w], 32);
  return r;
}

// ---- The driver ----

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

extern "C" {

CUresult cuInit(unsigned) { return 0; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return 0; }
CUresult cuDeviceGet(int* d, int ord) { if (ord != 0) return 101; *d = 0; return 0; }
CUresult cuDeviceGetName(char* name, int len, int) { snprintf(name, len, "mascot host emulator"); return 0; }
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
  switch (attr) {
    case 75: *v = 9; return 0;   // compute capability 9.0
    case 76: *v = 0; return 0;
    case 16: *v = 4; return 0;   // multiprocessors
  }
  return 1;
}
CUresult cuDeviceTotalMem_v2(size_t* b, int) { *b = size_t(8) << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void** c, int) { *c = (void*)0x1; return 0; }
CUresult cuCtxSetCurrent(void* c) { return c == (void*)0x1 ? 0 : 201; }
CUresult cuStreamCreate(void** s, unsigned) { *s = malloc(1); return 0; }
CUresult cuStreamDestroy_v2(void* s) { free(s); return 0; }
CUresult cuStreamSynchronize(void*) { return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  void* m = aligned_alloc(256, (n + 255) / 256 * 256);
  if (!m) return 2;
  memset(m, 0xff, n);  // NaN bytes: reading memory never written shows
  *p = (CUdeviceptr)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void*)p); return 0; }
CUresult cuMemGetInfo_v2(size_t* f, size_t* t) { *f = size_t(4) << 30; *t = size_t(8) << 30; return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void*) { memcpy((void*)d, s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void*) { memcpy(d, (void*)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void*) { memmove((void*)d, (void*)s, n); return 0; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void*) { memset((void*)d, v, n); return 0; }
CUresult cuModuleLoadData(void** m, const void* image) {
  if (!strstr((const char*)image, ".entry")) return 218;  // CUDA_ERROR_INVALID_PTX
  *m = (void*)0x2;
  return 0;
}
CUresult cuModuleGetFunction(void** f, void*, const char* name) {
  auto& ks = emu_kernels();
  auto it = ks.find(name);
  if (it == ks.end()) return 500;  // CUDA_ERROR_NOT_FOUND
  *f = (void*)&it->first;
  return 0;
}
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, void*, void** params, void** extra) {
  if (gx == 0 || gy == 0 || gz != 1 || by != 1 || bz != 1 || bx == 0 || bx > 1024 || bx % 32 != 0 || gy > 65535 ||
      extra != nullptr)
    return 1;  // the backend launches 1-D blocks of a multiple of 32 threads
  const std::string& name = *(const std::string*)f;
  const Kernel& k = emu_kernels().at(name);
  cur_name = name.c_str();
  cur_kernel = &k.run;
  cur_params = params;
  emu_gdim = emu_dim3{gx, gy, 1};
  emu_bdim = emu_dim3{bx, 1, 1};
  for (unsigned y = 0; y < gy; y++)
    for (unsigned x = 0; x < gx; x++) {
      emu_bid = emu_dim3{x, y, 0};
      run_block(bx, k.fibers);
    }
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  static char buf[32];
  snprintf(buf, sizeof buf, "EMU_ERROR_%d", r);
  *s = buf;
  return 0;
}

// ---- cuBLAS ----

typedef int cublasStatus_t;

int cublasCreate_v2(void** h) { *h = malloc(1); return 0; }
int cublasDestroy_v2(void* h) { free(h); return 0; }
int cublasSetStream_v2(void*, void*) { return 0; }
int cublasGetVersion_v2(void*, int* v) { *v = 130000; return 0; }
const char* cublasGetStatusString(int s) {
  switch (s) {
    case 7: return "CUBLAS_STATUS_INVALID_VALUE (emulator)";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED (emulator)";
  }
  return "emulator status";
}

}  // extern "C"

namespace {

double load(const void* p, int type, long long i) {
  if (type == 0) return ((const float*)p)[i];
  unsigned short h = ((const unsigned short*)p)[i];
  unsigned u = (unsigned)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// check applies cublasGemmEx's argument rules to one call.
int check(int ta, int tb, int m, int n, int k, int at, int lda, int bt, int ldb, int ct, int ldc, int compute) {
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1) || m < 0 || n < 0 || k < 0) return 7;
  if (lda < std::max(1, ta == 0 ? m : k) || ldb < std::max(1, tb == 0 ? k : n) || ldc < std::max(1, m)) return 7;
  if (compute != 68 || ct != 0) return 15;
  if (at != bt || (at != 0 && at != 14)) return 15;  // no mixed inputs in the configurations used
  return 0;
}

// gemm is C = alpha·op(A)·op(B) + beta·C, column-major, C float32.
void gemm(int ta, int tb, int m, int n, int k, float alpha, const void* A, int at, int lda, const void* B, int bt,
          int ldb, float beta, float* C, int ldc) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++) {
        const double a = ta == 0 ? load(A, at, i + (long long)l * lda) : load(A, at, l + (long long)i * lda);
        const double b = tb == 0 ? load(B, bt, l + (long long)j * ldb) : load(B, bt, j + (long long)l * ldb);
        s += a * b;
      }
      float& c = C[i + (long long)j * ldc];
      c = beta == 0 ? (float)(alpha * s) : (float)(alpha * s + (double)beta * c);
    }
}

}  // namespace

extern "C" {

int cublasGemmEx(void*, int ta, int tb, int m, int n, int k, const void* alpha, const void* A, int at, int lda,
                 const void* B, int bt, int ldb, const void* beta, void* C, int ct, int ldc, int compute, int algo) {
  if (int s = check(ta, tb, m, n, k, at, lda, bt, ldb, ct, ldc, compute)) return s;
  (void)algo;
  gemm(ta, tb, m, n, k, *(const float*)alpha, A, at, lda, B, bt, ldb, *(const float*)beta, (float*)C, ldc);
  return 0;
}

int cublasGemmBatchedEx(void*, int ta, int tb, int m, int n, int k, const void* alpha, const void* const A[], int at,
                        int lda, const void* const B[], int bt, int ldb, const void* beta, void* const C[], int ct,
                        int ldc, int count, int compute, int algo) {
  if (int s = check(ta, tb, m, n, k, at, lda, bt, ldb, ct, ldc, compute)) return s;
  if (count < 0) return 7;
  (void)algo;
  for (int i = 0; i < count; i++)
    gemm(ta, tb, m, n, k, *(const float*)alpha, A[i], at, lda, B[i], bt, ldb, *(const float*)beta, (float*)C[i], ldc);
  return 0;
}

// ---- NVRTC ----

struct Program {
  std::string src, ptx, log;
};

int nvrtcVersion(int* major, int* minor) { *major = 13; *minor = 0; return 0; }
const char* nvrtcGetErrorString(int) { return "emulator NVRTC error"; }
int nvrtcCreateProgram(void** p, const char* src, const char*, int, const char* const*, const char* const*) {
  *p = new Program{src, "", ""};
  return 0;
}
// The "PTX" names every kernel compiled into the emulator; the options
// must ask for the device's own architecture.
int nvrtcCompileProgram(void* p, int n, const char* const* opts) {
  Program* pr = (Program*)p;
  bool arch = false;
  for (int i = 0; i < n; i++) arch = arch || strcmp(opts[i], "--gpu-architecture=compute_90") == 0;
  if (!arch) {
    pr->log = "emulator: want --gpu-architecture=compute_90";
    return 6;
  }
  pr->ptx = "// mascot CUDA emulator\n.version 8.0\n.target sm_90\n";
  for (auto& k : emu_kernels()) pr->ptx += ".visible .entry " + k.first + "()\n";
  return 0;
}
int nvrtcGetPTXSize(void* p, size_t* n) { *n = ((Program*)p)->ptx.size() + 1; return 0; }
int nvrtcGetPTX(void* p, char* out) { memcpy(out, ((Program*)p)->ptx.c_str(), ((Program*)p)->ptx.size() + 1); return 0; }
int nvrtcGetProgramLogSize(void* p, size_t* n) { *n = ((Program*)p)->log.size() + 1; return 0; }
int nvrtcGetProgramLog(void* p, char* out) { memcpy(out, ((Program*)p)->log.c_str(), ((Program*)p)->log.size() + 1); return 0; }
int nvrtcDestroyProgram(void** p) { delete (Program*)*p; *p = nullptr; return 0; }

}  // extern "C"
