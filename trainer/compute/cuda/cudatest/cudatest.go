//go:build cuda

// Package cudatest opens CUDA backends for tests: on the GPU when
// MASCOT_GPU=1, else on a host emulator of the CUDA driver, cuBLAS and
// NVRTC (../testdata/emu) with the real kernels compiled in as C++, so the
// backend and the network above it run unchanged on machines without a
// GPU. The emulator checks the host side (library loading, cgo
// trampolines, argument packing, cuBLAS's column-major calls, chunking)
// and the kernels' logic; it says nothing of speed or of the real
// driver's behaviour, which only scripts/gpu-check on a GPU shows.
//
// Layer: test support for trainer/compute/cuda and the packages that run
// on it; built with -tags cuda.
package cudatest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/internal/dl"
	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/trainer/compute/cuda"
)

// EnvGPU names the variable that sends the tests to the GPU.
const EnvGPU = "MASCOT_GPU"

// GPU reports whether MASCOT_GPU=1.
func GPU() bool { return os.Getenv(EnvGPU) == "1" }

// RequireGPU skips t unless MASCOT_GPU=1, saying what it needs. A GPU is
// never in CI, so MASCOT_FULL does not turn the skip into a failure.
func RequireGPU(t testing.TB) {
	t.Helper()
	if !GPU() {
		t.Skipf("needs a GPU: set %s=1 on a machine with one and the CUDA libraries (scripts/gpu-check)", EnvGPU)
	}
}

var emu struct {
	once sync.Once
	dir  string
	err  error
}

// source is the emulator's directory beside this package.
func source() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "emu")
}

// build compiles the emulator once per test binary into a temporary
// directory, under the sonames the backend searches for.
func build() (string, error) {
	emu.once.Do(func() {
		cxx, err := exec.LookPath("g++")
		if err != nil {
			if cxx, err = exec.LookPath("clang++"); err != nil {
				emu.err = errNoCompiler
				return
			}
		}
		dir, err := os.MkdirTemp("", "mascot-cuda-emu-")
		if err != nil {
			emu.err = err
			return
		}
		gen := filepath.Join(dir, "kernels.cc")
		if err := os.WriteFile(gen, []byte(cuda.EmulatorKernels()), 0o644); err != nil {
			emu.err = err
			return
		}
		src := source()
		lib := filepath.Join(dir, "libmascotemu.so")
		out, err := exec.Command(cxx, "-std=c++17", "-O2", "-U_FORTIFY_SOURCE", "-shared", "-fPIC", "-I", src,
			"-o", lib, filepath.Join(src, "emu.cc"), gen).CombinedOutput()
		if err != nil {
			emu.err = fmt.Errorf("compiling the CUDA emulator: %v\n%s", err, out)
			return
		}
		for _, name := range []string{"libcuda.so.1", "libcublasLt.so.13", "libcublas.so.13", "libnvrtc.so.13"} {
			if err := os.Symlink(lib, filepath.Join(dir, name)); err != nil {
				emu.err = err
				return
			}
		}
		emu.dir = dir
	})
	return emu.dir, emu.err
}

var errNoCompiler = fmt.Errorf("no C++ compiler for the CUDA emulator (g++ or clang++; apt-get install g++)")

// Cleanup removes the emulator's build; call it from TestMain after
// m.Run.
func Cleanup() {
	if emu.dir != "" {
		os.RemoveAll(emu.dir)
	}
}

// useEmulator points the library search at the emulator (and the PTX
// cache at its directory). It skips when a real driver is on the loader's
// path (the search would find that first) and, unless MASCOT_FULL=1, when
// there is no C++ compiler.
func useEmulator(t testing.TB) {
	t.Helper()
	if _, err := dl.Open([]string{"libcuda.so.1", "libcuda.so"}, nil); err == nil {
		t.Skipf("a CUDA driver is on the loader's path, so the emulator would not be loaded; set %s=1 to test the GPU", EnvGPU)
	}
	dir, err := build()
	if err != nil {
		testgate.Need(t, err != errNoCompiler, err.Error())
		t.Fatal(err)
	}
	os.Setenv(cuda.EnvLibs, dir)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
}

// Open returns a backend with o for t, closed when t ends: on the GPU
// when MASCOT_GPU=1 (failing t if none opens), else on the emulator.
func Open(t testing.TB, o cuda.Options) *cuda.Backend {
	t.Helper()
	if !GPU() {
		useEmulator(t)
	}
	b, err := cuda.New(o)
	if err != nil {
		t.Fatalf("opening the cuda backend: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Emulated reports whether b runs on the emulator.
func Emulated(b *cuda.Backend) bool {
	name, _, _ := b.Device()
	return strings.Contains(name, "emulator")
}
