//go:build cuda

package cuda

// The C side of the backend: the few CUDA driver, cuBLAS and NVRTC types
// and prototypes it calls, declared here rather than taken from CUDA's
// headers (which these machines lack), and one trampoline per function.
// Go resolves each function's address with dlsym (internal/dl) and passes
// it to its trampoline, which casts it to the prototype and calls it.
//
// The driver's current context is per OS thread and Go moves goroutines
// between threads, so every trampoline that needs the context first makes
// the backend's context current on the calling thread (mc_ensure, cheap
// once it is).

/*
#include <stddef.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;
typedef void* cublasHandle_t;
typedef int cublasStatus_t;
typedef void* nvrtcProgram;
typedef int nvrtcResult;

static void* mc_set_current;
static CUcontext mc_ctx;
static __thread CUcontext mc_cur;

static void mc_use_context(void* setCurrent, CUcontext ctx) { mc_set_current = setCurrent; mc_ctx = ctx; }

static CUresult mc_ensure(void) {
	if (mc_ctx == 0 || mc_cur == mc_ctx) return 0;
	CUresult r = ((CUresult (*)(CUcontext))mc_set_current)(mc_ctx);
	if (r == 0) mc_cur = mc_ctx;
	return r;
}

#define ENSURE { CUresult e_ = mc_ensure(); if (e_) return e_; }

// Driver.
static CUresult mc_cuInit(void* f, unsigned flags) { return ((CUresult (*)(unsigned))f)(flags); }
static CUresult mc_cuDriverGetVersion(void* f, int* v) { return ((CUresult (*)(int*))f)(v); }
static CUresult mc_cuDeviceGetCount(void* f, int* n) { return ((CUresult (*)(int*))f)(n); }
static CUresult mc_cuDeviceGet(void* f, CUdevice* d, int ord) { return ((CUresult (*)(CUdevice*, int))f)(d, ord); }
static CUresult mc_cuDeviceGetName(void* f, char* name, int len, CUdevice d) { return ((CUresult (*)(char*, int, CUdevice))f)(name, len, d); }
static CUresult mc_cuDeviceGetAttribute(void* f, int* v, int attr, CUdevice d) { return ((CUresult (*)(int*, int, CUdevice))f)(v, attr, d); }
static CUresult mc_cuDeviceTotalMem(void* f, size_t* b, CUdevice d) { return ((CUresult (*)(size_t*, CUdevice))f)(b, d); }
static CUresult mc_cuDevicePrimaryCtxRetain(void* f, CUcontext* c, CUdevice d) { return ((CUresult (*)(CUcontext*, CUdevice))f)(c, d); }
static CUresult mc_cuStreamCreate(void* f, CUstream* s, unsigned flags) { ENSURE return ((CUresult (*)(CUstream*, unsigned))f)(s, flags); }
static CUresult mc_cuStreamDestroy(void* f, CUstream s) { ENSURE return ((CUresult (*)(CUstream))f)(s); }
static CUresult mc_cuStreamSynchronize(void* f, CUstream s) { ENSURE return ((CUresult (*)(CUstream))f)(s); }
static CUresult mc_cuMemAlloc(void* f, CUdeviceptr* p, size_t n) { ENSURE return ((CUresult (*)(CUdeviceptr*, size_t))f)(p, n); }
static CUresult mc_cuMemFree(void* f, CUdeviceptr p) { ENSURE return ((CUresult (*)(CUdeviceptr))f)(p); }
static CUresult mc_cuMemGetInfo(void* f, size_t* free, size_t* total) { ENSURE return ((CUresult (*)(size_t*, size_t*))f)(free, total); }
static CUresult mc_cuMemcpyHtoDAsync(void* f, CUdeviceptr dst, const void* src, size_t n, CUstream s) {
	ENSURE return ((CUresult (*)(CUdeviceptr, const void*, size_t, CUstream))f)(dst, src, n, s);
}
static CUresult mc_cuMemcpyDtoHAsync(void* f, void* dst, CUdeviceptr src, size_t n, CUstream s) {
	ENSURE return ((CUresult (*)(void*, CUdeviceptr, size_t, CUstream))f)(dst, src, n, s);
}
static CUresult mc_cuMemcpyDtoDAsync(void* f, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
	ENSURE return ((CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream))f)(dst, src, n, s);
}
static CUresult mc_cuMemsetD8Async(void* f, CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
	ENSURE return ((CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream))f)(dst, v, n, s);
}
static CUresult mc_cuModuleLoadData(void* f, CUmodule* m, const void* image) { ENSURE return ((CUresult (*)(CUmodule*, const void*))f)(m, image); }
static CUresult mc_cuModuleGetFunction(void* f, CUfunction* fn, CUmodule m, const char* name) {
	ENSURE return ((CUresult (*)(CUfunction*, CUmodule, const char*))f)(fn, m, name);
}
static CUresult mc_cuGetErrorName(void* f, CUresult r, const char** s) { return ((CUresult (*)(CUresult, const char**))f)(r, s); }

// mc_launch builds the kernelParams array (one pointer per parameter, into
// the packed argument buffer) and launches; the driver copies the values
// before it returns, so buf may be Go memory.
static CUresult mc_launch(void* f, CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
		unsigned bx, unsigned by, unsigned bz, unsigned shmem, CUstream s,
		unsigned char* buf, const int* offs, int nargs) {
	ENSURE
	void* params[64];
	if (nargs > 64) return 1; // CUDA_ERROR_INVALID_VALUE
	for (int i = 0; i < nargs; i++) params[i] = buf + offs[i];
	return ((CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**))f)(
		fn, gx, gy, gz, bx, by, bz, shmem, s, params, 0);
}

// cuBLAS.
static cublasStatus_t mc_cublasCreate(void* f, cublasHandle_t* h) { ENSURE return ((cublasStatus_t (*)(cublasHandle_t*))f)(h); }
static cublasStatus_t mc_cublasDestroy(void* f, cublasHandle_t h) { ENSURE return ((cublasStatus_t (*)(cublasHandle_t))f)(h); }
static cublasStatus_t mc_cublasSetStream(void* f, cublasHandle_t h, CUstream s) { ENSURE return ((cublasStatus_t (*)(cublasHandle_t, CUstream))f)(h, s); }
static cublasStatus_t mc_cublasGetVersion(void* f, cublasHandle_t h, int* v) { ENSURE return ((cublasStatus_t (*)(cublasHandle_t, int*))f)(h, v); }
static const char* mc_cublasGetStatusString(void* f, cublasStatus_t s) { return ((const char* (*)(cublasStatus_t))f)(s); }

static cublasStatus_t mc_cublasGemmEx(void* f, cublasHandle_t h, int ta, int tb, int m, int n, int k,
		const float* alpha, CUdeviceptr A, int at, int lda, CUdeviceptr B, int bt, int ldb,
		const float* beta, CUdeviceptr C, int ct, int ldc, int compute, int algo) {
	ENSURE
	return ((cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int,
		const void*, int, int, const void*, void*, int, int, int, int))f)(
		h, ta, tb, m, n, k, alpha, (const void*)A, at, lda, (const void*)B, bt, ldb, beta, (void*)C, ct, ldc, compute, algo);
}

static cublasStatus_t mc_cublasGemmBatchedEx(void* f, cublasHandle_t h, int ta, int tb, int m, int n, int k,
		const float* alpha, CUdeviceptr A, int at, int lda, CUdeviceptr B, int bt, int ldb,
		const float* beta, CUdeviceptr C, int ct, int ldc, int count, int compute, int algo) {
	ENSURE
	return ((cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void* const*, int, int,
		const void* const*, int, int, const void*, void* const*, int, int, int, int, int))f)(
		h, ta, tb, m, n, k, alpha, (const void* const*)A, at, lda, (const void* const*)B, bt, ldb, beta,
		(void* const*)C, ct, ldc, count, compute, algo);
}

// NVRTC.
static nvrtcResult mc_nvrtcVersion(void* f, int* major, int* minor) { return ((nvrtcResult (*)(int*, int*))f)(major, minor); }
static const char* mc_nvrtcGetErrorString(void* f, nvrtcResult r) { return ((const char* (*)(nvrtcResult))f)(r); }
static nvrtcResult mc_nvrtcCreateProgram(void* f, nvrtcProgram* p, const char* src, const char* name) {
	return ((nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*))f)(p, src, name, 0, 0, 0);
}
// mc_nvrtcCompileProgram takes the options as one buffer of n
// NUL-terminated strings.
static nvrtcResult mc_nvrtcCompileProgram(void* f, nvrtcProgram p, const char* opts, int n) {
	const char* argv[32];
	if (n > 32) return 6; // NVRTC_ERROR_INVALID_OPTION
	for (int i = 0; i < n; i++) { argv[i] = opts; while (*opts) opts++; opts++; }
	return ((nvrtcResult (*)(nvrtcProgram, int, const char* const*))f)(p, n, argv);
}
static nvrtcResult mc_nvrtcGetSize(void* f, nvrtcProgram p, size_t* n) { return ((nvrtcResult (*)(nvrtcProgram, size_t*))f)(p, n); }
static nvrtcResult mc_nvrtcGetText(void* f, nvrtcProgram p, char* out) { return ((nvrtcResult (*)(nvrtcProgram, char*))f)(p, out); }
static nvrtcResult mc_nvrtcDestroyProgram(void* f, nvrtcProgram* p) { return ((nvrtcResult (*)(nvrtcProgram*))f)(p); }
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"mascot.dev/mascot/internal/dl"
)

// Constants of the CUDA headers the backend uses.
const (
	cuStreamNonBlocking = 1
	cuErrorOutOfMemory  = 2

	attrMultiprocessors = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrCCMajor         = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrCCMinor         = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

	blasOpN = 0 // CUBLAS_OP_N
	blasOpT = 1 // CUBLAS_OP_T

	dtR32F  = 0  // CUDA_R_32F
	dtR16BF = 14 // CUDA_R_16BF

	computeF32  = 68 // CUBLAS_COMPUTE_32F: float32 arithmetic and accumulation
	gemmDefault = -1 // CUBLAS_GEMM_DEFAULT
)

// api holds the resolved entry points of the three libraries.
type api struct {
	libs *libraries
	drv  struct {
		init, driverGetVersion, deviceGetCount, deviceGet, deviceGetName, deviceGetAttribute, deviceTotalMem,
		primaryCtxRetain, ctxSetCurrent, streamCreate, streamDestroy, streamSynchronize, memAlloc, memFree,
		memGetInfo, memcpyHtoDAsync, memcpyDtoHAsync, memcpyDtoDAsync, memsetD8Async, moduleLoadData,
		moduleGetFunction, launchKernel, getErrorName unsafe.Pointer
	}
	blas struct {
		create, destroy, setStream, getVersion, getStatusString, gemmEx, gemmBatchedEx unsafe.Pointer
	}
	rtc struct {
		version, getErrorString, createProgram, compileProgram, getPTXSize, getPTX, getLogSize, getLog,
		destroyProgram unsafe.Pointer
	}
}

// resolve looks up every symbol of syms in l, reporting all that are
// missing at once.
func resolve(l *dl.Lib, syms map[string]*unsafe.Pointer) error {
	var missing []string
	for name, dst := range syms {
		p, err := l.Sym(name)
		if err != nil {
			missing = append(missing, name)
			continue
		}
		*dst = p
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %s (is it older than CUDA 12?)", l.Path, strings.Join(missing, ", "))
	}
	return nil
}

func newAPI(libs *libraries) (*api, error) {
	a := &api{libs: libs}
	d, b, r := &a.drv, &a.blas, &a.rtc
	if err := resolve(libs.driver, map[string]*unsafe.Pointer{
		"cuInit": &d.init, "cuDriverGetVersion": &d.driverGetVersion, "cuDeviceGetCount": &d.deviceGetCount,
		"cuDeviceGet": &d.deviceGet, "cuDeviceGetName": &d.deviceGetName, "cuDeviceGetAttribute": &d.deviceGetAttribute,
		"cuDeviceTotalMem_v2": &d.deviceTotalMem, "cuDevicePrimaryCtxRetain": &d.primaryCtxRetain,
		"cuCtxSetCurrent": &d.ctxSetCurrent, "cuStreamCreate": &d.streamCreate, "cuStreamDestroy_v2": &d.streamDestroy,
		"cuStreamSynchronize": &d.streamSynchronize, "cuMemAlloc_v2": &d.memAlloc, "cuMemFree_v2": &d.memFree,
		"cuMemGetInfo_v2": &d.memGetInfo, "cuMemcpyHtoDAsync_v2": &d.memcpyHtoDAsync,
		"cuMemcpyDtoHAsync_v2": &d.memcpyDtoHAsync, "cuMemcpyDtoDAsync_v2": &d.memcpyDtoDAsync,
		"cuMemsetD8Async": &d.memsetD8Async, "cuModuleLoadData": &d.moduleLoadData,
		"cuModuleGetFunction": &d.moduleGetFunction, "cuLaunchKernel": &d.launchKernel, "cuGetErrorName": &d.getErrorName,
	}); err != nil {
		return nil, err
	}
	if err := resolve(libs.blas, map[string]*unsafe.Pointer{
		"cublasCreate_v2": &b.create, "cublasDestroy_v2": &b.destroy, "cublasSetStream_v2": &b.setStream,
		"cublasGetVersion_v2": &b.getVersion, "cublasGetStatusString": &b.getStatusString,
		"cublasGemmEx": &b.gemmEx, "cublasGemmBatchedEx": &b.gemmBatchedEx,
	}); err != nil {
		return nil, err
	}
	if err := resolve(libs.nvrtc, map[string]*unsafe.Pointer{
		"nvrtcVersion": &r.version, "nvrtcGetErrorString": &r.getErrorString, "nvrtcCreateProgram": &r.createProgram,
		"nvrtcCompileProgram": &r.compileProgram, "nvrtcGetPTXSize": &r.getPTXSize, "nvrtcGetPTX": &r.getPTX,
		"nvrtcGetProgramLogSize": &r.getLogSize, "nvrtcGetProgramLog": &r.getLog, "nvrtcDestroyProgram": &r.destroyProgram,
	}); err != nil {
		return nil, err
	}
	return a, nil
}

// cuErr turns a driver result into an error naming the call (nil for
// CUDA_SUCCESS).
func (a *api) cuErr(r C.CUresult, what string) error {
	if r == 0 {
		return nil
	}
	name := "unknown"
	var s *C.char
	if C.mc_cuGetErrorName(a.drv.getErrorName, r, &s) == 0 && s != nil {
		name = C.GoString(s)
	}
	return &driverError{code: int(r), name: name, what: what}
}

// driverError is a failed driver call.
type driverError struct {
	code       int
	name, what string
}

func (e *driverError) Error() string {
	return fmt.Sprintf("%s: %s (CUDA error %d)", e.what, e.name, e.code)
}

func (a *api) blasErr(s C.cublasStatus_t, what string) error {
	if s == 0 {
		return nil
	}
	msg := C.GoString(C.mc_cublasGetStatusString(a.blas.getStatusString, s))
	return fmt.Errorf("%s: %s (cuBLAS status %d)", what, msg, int(s))
}

func (a *api) rtcErr(r C.nvrtcResult, what string) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s (NVRTC result %d)", what, C.GoString(C.mc_nvrtcGetErrorString(a.rtc.getErrorString, r)), int(r))
}

// Driver wrappers. Handles travel as unsafe.Pointer outside this file.

func (a *api) initDriver() error { return a.cuErr(C.mc_cuInit(a.drv.init, 0), "cuInit") }

func (a *api) driverVersion() (int, error) {
	var v C.int
	err := a.cuErr(C.mc_cuDriverGetVersion(a.drv.driverGetVersion, &v), "cuDriverGetVersion")
	return int(v), err
}

func (a *api) deviceCount() (int, error) {
	var n C.int
	err := a.cuErr(C.mc_cuDeviceGetCount(a.drv.deviceGetCount, &n), "cuDeviceGetCount")
	return int(n), err
}

// deviceInfo describes device ordinal ord.
type deviceInfo struct {
	ordinal      int
	dev          C.CUdevice
	name         string
	major, minor int
	sms          int
	memory       int64
}

func (a *api) device(ord int) (deviceInfo, error) {
	info := deviceInfo{ordinal: ord}
	if err := a.cuErr(C.mc_cuDeviceGet(a.drv.deviceGet, &info.dev, C.int(ord)), "cuDeviceGet"); err != nil {
		return info, err
	}
	var name [256]C.char
	if err := a.cuErr(C.mc_cuDeviceGetName(a.drv.deviceGetName, &name[0], 256, info.dev), "cuDeviceGetName"); err != nil {
		return info, err
	}
	info.name = C.GoString(&name[0])
	for _, q := range []struct {
		attr int
		dst  *int
	}{{attrCCMajor, &info.major}, {attrCCMinor, &info.minor}, {attrMultiprocessors, &info.sms}} {
		var v C.int
		if err := a.cuErr(C.mc_cuDeviceGetAttribute(a.drv.deviceGetAttribute, &v, C.int(q.attr), info.dev), "cuDeviceGetAttribute"); err != nil {
			return info, err
		}
		*q.dst = int(v)
	}
	var mem C.size_t
	if err := a.cuErr(C.mc_cuDeviceTotalMem(a.drv.deviceTotalMem, &mem, info.dev), "cuDeviceTotalMem"); err != nil {
		return info, err
	}
	info.memory = int64(mem)
	return info, nil
}

// useDevice retains the device's primary context and makes it the one
// every trampoline makes current.
func (a *api) useDevice(info deviceInfo) error {
	var ctx C.CUcontext
	if err := a.cuErr(C.mc_cuDevicePrimaryCtxRetain(a.drv.primaryCtxRetain, &ctx, info.dev), "cuDevicePrimaryCtxRetain"); err != nil {
		return err
	}
	C.mc_use_context(a.drv.ctxSetCurrent, ctx)
	return nil
}

func (a *api) streamCreate() (unsafe.Pointer, error) {
	var s C.CUstream
	err := a.cuErr(C.mc_cuStreamCreate(a.drv.streamCreate, &s, cuStreamNonBlocking), "cuStreamCreate")
	return unsafe.Pointer(s), err
}

func (a *api) streamDestroy(s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuStreamDestroy(a.drv.streamDestroy, C.CUstream(s)), "cuStreamDestroy")
}

func (a *api) streamSync(s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuStreamSynchronize(a.drv.streamSynchronize, C.CUstream(s)), "cuStreamSynchronize")
}

func (a *api) memAlloc(n int) (devPtr, error) {
	var p C.CUdeviceptr
	err := a.cuErr(C.mc_cuMemAlloc(a.drv.memAlloc, &p, C.size_t(n)), fmt.Sprintf("cuMemAlloc of %d bytes", n))
	return devPtr(p), err
}

func (a *api) memFree(p devPtr) error {
	return a.cuErr(C.mc_cuMemFree(a.drv.memFree, C.CUdeviceptr(p)), "cuMemFree")
}

func (a *api) memInfo() (free, total int64, err error) {
	var f, t C.size_t
	err = a.cuErr(C.mc_cuMemGetInfo(a.drv.memGetInfo, &f, &t), "cuMemGetInfo")
	return int64(f), int64(t), err
}

// htod copies n bytes from Go memory at src (which holds no Go pointers)
// to the device, in stream order. The driver stages pageable memory
// before it returns, so src may change afterwards.
func (a *api) htod(dst devPtr, src unsafe.Pointer, n int, s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuMemcpyHtoDAsync(a.drv.memcpyHtoDAsync, C.CUdeviceptr(dst), src, C.size_t(n), C.CUstream(s)), "cuMemcpyHtoDAsync")
}

// dtoh copies n bytes from the device to Go memory; into pageable memory
// the driver returns only once the copy is done.
func (a *api) dtoh(dst unsafe.Pointer, src devPtr, n int, s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuMemcpyDtoHAsync(a.drv.memcpyDtoHAsync, dst, C.CUdeviceptr(src), C.size_t(n), C.CUstream(s)), "cuMemcpyDtoHAsync")
}

func (a *api) dtod(dst, src devPtr, n int, s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuMemcpyDtoDAsync(a.drv.memcpyDtoDAsync, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), C.CUstream(s)), "cuMemcpyDtoDAsync")
}

func (a *api) memset(dst devPtr, n int, s unsafe.Pointer) error {
	return a.cuErr(C.mc_cuMemsetD8Async(a.drv.memsetD8Async, C.CUdeviceptr(dst), 0, C.size_t(n), C.CUstream(s)), "cuMemsetD8Async")
}

// loadModule JIT-compiles NUL-terminated PTX for the current device.
func (a *api) loadModule(ptx []byte) (unsafe.Pointer, error) {
	var m C.CUmodule
	err := a.cuErr(C.mc_cuModuleLoadData(a.drv.moduleLoadData, &m, unsafe.Pointer(&ptx[0])), "cuModuleLoadData")
	return unsafe.Pointer(m), err
}

func (a *api) function(mod unsafe.Pointer, name string) (unsafe.Pointer, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var f C.CUfunction
	err := a.cuErr(C.mc_cuModuleGetFunction(a.drv.moduleGetFunction, &f, C.CUmodule(mod), cs), "cuModuleGetFunction "+name)
	return unsafe.Pointer(f), err
}

// launch starts fn on grid×block threads with the packed arguments.
func (a *api) launch(fn unsafe.Pointer, grid, block [3]int, shmem int, s unsafe.Pointer, p packedArgs) error {
	offs := make([]C.int, len(p.offs)+1) // +1: never empty
	for i, o := range p.offs {
		offs[i] = C.int(o)
	}
	buf := p.buf
	if len(buf) == 0 {
		buf = []byte{0}
	}
	r := C.mc_launch(a.drv.launchKernel, C.CUfunction(fn), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shmem), C.CUstream(s),
		(*C.uchar)(unsafe.Pointer(&buf[0])), &offs[0], C.int(len(p.offs)))
	return a.cuErr(r, "cuLaunchKernel")
}

// cuBLAS wrappers.

func (a *api) blasCreate(stream unsafe.Pointer) (unsafe.Pointer, int, error) {
	var h C.cublasHandle_t
	if err := a.blasErr(C.mc_cublasCreate(a.blas.create, &h), "cublasCreate"); err != nil {
		return nil, 0, err
	}
	if err := a.blasErr(C.mc_cublasSetStream(a.blas.setStream, h, C.CUstream(stream)), "cublasSetStream"); err != nil {
		C.mc_cublasDestroy(a.blas.destroy, h)
		return nil, 0, err
	}
	var v C.int
	_ = a.blasErr(C.mc_cublasGetVersion(a.blas.getVersion, h, &v), "cublasGetVersion")
	return unsafe.Pointer(h), int(v), nil
}

func (a *api) blasDestroy(h unsafe.Pointer) error {
	return a.blasErr(C.mc_cublasDestroy(a.blas.destroy, C.cublasHandle_t(h)), "cublasDestroy")
}

// gemmCall is one cublasGemmEx or cublasGemmBatchedEx in cuBLAS's own
// (column-major) terms; for a batched call A, B and C are device arrays
// of count device pointers.
type gemmCall struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        devPtr
	at, bt         int // CUDA data types of A and B; C is always F32
	lda, ldb, ldc  int
	count          int // 0: one product (GemmEx)
}

func op(t bool) C.int {
	if t {
		return blasOpT
	}
	return blasOpN
}

func (a *api) gemm(h unsafe.Pointer, g gemmCall) error {
	alpha, beta := C.float(g.alpha), C.float(g.beta)
	if g.count == 0 {
		return a.blasErr(C.mc_cublasGemmEx(a.blas.gemmEx, C.cublasHandle_t(h), op(g.transA), op(g.transB),
			C.int(g.m), C.int(g.n), C.int(g.k), &alpha, C.CUdeviceptr(g.a), C.int(g.at), C.int(g.lda),
			C.CUdeviceptr(g.b), C.int(g.bt), C.int(g.ldb), &beta, C.CUdeviceptr(g.c), dtR32F, C.int(g.ldc),
			computeF32, gemmDefault), "cublasGemmEx")
	}
	return a.blasErr(C.mc_cublasGemmBatchedEx(a.blas.gemmBatchedEx, C.cublasHandle_t(h), op(g.transA), op(g.transB),
		C.int(g.m), C.int(g.n), C.int(g.k), &alpha, C.CUdeviceptr(g.a), C.int(g.at), C.int(g.lda),
		C.CUdeviceptr(g.b), C.int(g.bt), C.int(g.ldb), &beta, C.CUdeviceptr(g.c), dtR32F, C.int(g.ldc),
		C.int(g.count), computeF32, gemmDefault), "cublasGemmBatchedEx")
}

// NVRTC wrappers.

func (a *api) nvrtcVersion() (int, int, error) {
	var major, minor C.int
	err := a.rtcErr(C.mc_nvrtcVersion(a.rtc.version, &major, &minor), "nvrtcVersion")
	return int(major), int(minor), err
}

// compile runs NVRTC on src with opts and returns the PTX (NUL
// terminated) or an error carrying the compiler's log.
func (a *api) compile(src, name string, opts []string) ([]byte, error) {
	csrc, cname := C.CString(src), C.CString(name)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cname))
	var prog C.nvrtcProgram
	if err := a.rtcErr(C.mc_nvrtcCreateProgram(a.rtc.createProgram, &prog, csrc, cname), "nvrtcCreateProgram"); err != nil {
		return nil, err
	}
	defer C.mc_nvrtcDestroyProgram(a.rtc.destroyProgram, &prog)
	var ob []byte
	for _, o := range opts {
		ob = append(append(ob, o...), 0)
	}
	ob = append(ob, 0)
	res := C.mc_nvrtcCompileProgram(a.rtc.compileProgram, prog, (*C.char)(unsafe.Pointer(&ob[0])), C.int(len(opts)))
	if res != 0 {
		log := a.text(prog, a.rtc.getLogSize, a.rtc.getLog)
		return nil, fmt.Errorf("%w\n%s", a.rtcErr(res, "compiling the kernels with NVRTC ("+strings.Join(opts, " ")+")"), log)
	}
	ptx := a.text(prog, a.rtc.getPTXSize, a.rtc.getPTX)
	if len(ptx) == 0 {
		return nil, fmt.Errorf("NVRTC returned no PTX")
	}
	return append([]byte(ptx), 0), nil
}

// text reads one of NVRTC's outputs (the log or the PTX).
func (a *api) text(prog C.nvrtcProgram, size, get unsafe.Pointer) string {
	var n C.size_t
	if C.mc_nvrtcGetSize(size, prog, &n) != 0 || n == 0 {
		return ""
	}
	buf := make([]byte, int(n))
	if C.mc_nvrtcGetText(get, prog, (*C.char)(unsafe.Pointer(&buf[0]))) != 0 {
		return ""
	}
	return strings.TrimRight(string(buf), "\x00")
}
