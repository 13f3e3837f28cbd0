package cuda

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// clangPrelude declares, for clang, what NVRTC provides built in and the
// kernels use: the execution-space attributes, threadIdx and friends
// (clang's own header), and the device functions, as calls into
// libdevice's __nv_* functions (declared, never linked: the test stops at
// PTX).
const clangPrelude = `
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>
extern "C" __device__ float __nv_expf(float);
extern "C" __device__ float __nv_logf(float);
extern "C" __device__ float __nv_sqrtf(float);
extern "C" __device__ float __nv_fmaxf(float, float);
static __device__ __forceinline__ float expf(float x) { return __nv_expf(x); }
static __device__ __forceinline__ float logf(float x) { return __nv_logf(x); }
static __device__ __forceinline__ float sqrtf(float x) { return __nv_sqrtf(x); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __nv_fmaxf(a, b); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ float __shfl_xor_sync(unsigned mask, float v, int lane) {
	return __nvvm_shfl_sync_bfly_f32(mask, v, lane, 0x1f);
}
static __device__ __forceinline__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static __device__ __forceinline__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
`

// TestKernelsCompileWithClang compiles every kernel to PTX with clang's
// CUDA front end (no CUDA SDK needed), so syntax and type errors in
// kernels/ fail here rather than on a GPU, and checks each kernel's
// parameters in the PTX against kernelSigs, the table launches are
// packed by: same kernels, same number of parameters, same sizes.
func TestKernelsCompileWithClang(t *testing.T) {
	clang, err := exec.LookPath("clang")
	testgate.Need(t, err == nil, "clang is not installed (apt-get install clang; .ci/run installs it): the kernels are not compiled here")
	src := filepath.Join(t.TempDir(), "kernels.cu")
	if err := os.WriteFile(src, []byte(clangPrelude+kernelSource()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_80", "-Xclang", "-target-feature", "-Xclang", "+ptx70",
		"-O2", "-Wall", "-Werror", "-S", "-o", "-", src)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ptx, err := cmd.Output()
	if err != nil {
		t.Fatalf("clang could not compile the kernels: %v\n%s", err, stderr.String())
	}
	entries := ptxEntries(t, string(ptx))
	var names []string
	for n := range kernelSigs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, ok := entries[n]
		if !ok {
			t.Errorf("kernel %s is declared in kernelSigs but not defined in kernels/", n)
			continue
		}
		want := kernelSigs[n]
		if len(got) != len(want) {
			t.Errorf("kernel %s takes %d parameters in kernels/, kernelSigs says %d", n, len(got), len(want))
			continue
		}
		for i, k := range want {
			if ptxClass(k) != got[i] {
				t.Errorf("kernel %s parameter %d is PTX %s, kernelSigs says %s", n, i, got[i], k)
			}
		}
	}
	for n := range entries {
		if _, ok := kernelSigs[n]; !ok {
			t.Errorf("kernel %s is defined in kernels/ but missing from kernelSigs", n)
		}
	}
}

// ptxClass is the PTX parameter type clang gives a C parameter of kind k.
func ptxClass(k argKind) string {
	switch k {
	case aI32:
		return "b32"
	case aF32:
		return "f32"
	}
	return "b64"
}

var (
	entryRE = regexp.MustCompile(`^\.visible \.entry (\w+)\(`)
	paramRE = regexp.MustCompile(`^\s*\.param \.(\w)(\d+) `)
)

// ptxEntries reads each kernel's parameter types from PTX: b32, b64 for
// integers and pointers of that size, f32 for floats.
func ptxEntries(t *testing.T, ptx string) map[string][]string {
	out := map[string][]string{}
	var cur string
	sc := bufio.NewScanner(strings.NewReader(ptx))
	for sc.Scan() {
		line := sc.Text()
		if m := entryRE.FindStringSubmatch(line); m != nil {
			cur = m[1]
			out[cur] = []string{}
			continue
		}
		if cur == "" {
			continue
		}
		if m := paramRE.FindStringSubmatch(line); m != nil {
			class := "b" + m[2]
			if m[1] == "f" {
				class = "f" + m[2]
			}
			out[cur] = append(out[cur], class)
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), ")") {
			cur = ""
		}
	}
	if len(out) == 0 {
		t.Fatalf("no .entry in clang's PTX:\n%.2000s", ptx)
	}
	return out
}
