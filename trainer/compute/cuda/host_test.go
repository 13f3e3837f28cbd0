package cuda

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/dl"
	"mascot.dev/mascot/trainer/compute"
)

// The tests in this file need neither a GPU nor -tags cuda: they check
// what the backend does on the host.

func TestPackArgsLayout(t *testing.T) {
	kinds := []argKind{aI32, aPtr, aF32, aI64, aI32, aU64}
	p, err := packArgs("k", kinds, []any{7, devPtr(0xdeadbeef00), float32(1.5), -3, -1, uint64(1) << 63})
	if err != nil {
		t.Fatal(err)
	}
	// C alignment: int at 0, pointer at 8 (padded), float at 16, long
	// long at 24, int at 32, unsigned long long at 40.
	if want := []int{0, 8, 16, 24, 32, 40}; !slices.Equal(p.offs, want) {
		t.Fatalf("offsets %v, want %v", p.offs, want)
	}
	if len(p.buf) != 48 {
		t.Fatalf("buffer of %d bytes, want 48", len(p.buf))
	}
	le := binary.LittleEndian
	if le.Uint32(p.buf[0:]) != 7 || le.Uint64(p.buf[8:]) != 0xdeadbeef00 ||
		math.Float32frombits(le.Uint32(p.buf[16:])) != 1.5 || int64(le.Uint64(p.buf[24:])) != -3 ||
		int32(le.Uint32(p.buf[32:])) != -1 || le.Uint64(p.buf[40:]) != 1<<63 {
		t.Fatalf("values did not round-trip: % x", p.buf)
	}
}

func TestPackArgsRejectsMismatches(t *testing.T) {
	for _, c := range []struct {
		name  string
		kinds []argKind
		args  []any
		want  string
	}{
		{"count", []argKind{aPtr, aI32}, []any{devPtr(1)}, "1 arguments, the kernel takes 2"},
		{"float for int", []argKind{aI32}, []any{float32(1)}, "argument 0 is float32, the kernel takes int"},
		{"int for pointer", []argKind{aPtr}, []any{5}, "argument 0 is int, the kernel takes pointer"},
		{"float64 for float", []argKind{aF32}, []any{1.0}, "argument 0 is float64, the kernel takes float"},
		{"int overflow", []argKind{aI32}, []any{1 << 31}, "does not fit a C int"},
	} {
		if _, err := packArgs("k_x", c.kinds, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// Every kernel the table declares has at most the 64 parameters the
// launch trampoline takes.
func TestKernelSigsFitTheLaunch(t *testing.T) {
	for n, s := range kernelSigs {
		if len(s) == 0 || len(s) > 64 {
			t.Errorf("%s has %d parameters", n, len(s))
		}
	}
}

func TestPTXKeyCoversSourceOptionsAndVersion(t *testing.T) {
	src := kernelSource()
	base := ptxKey(src, []string{"--gpu-architecture=compute_90"}, "13.0")
	if len(base) != 64 {
		t.Fatalf("key %q is not a hex SHA-256", base)
	}
	if ptxKey(src, []string{"--gpu-architecture=compute_90"}, "13.0") != base {
		t.Fatal("the key is not a function of its inputs")
	}
	for name, k := range map[string]string{
		"source":  ptxKey(src+" ", []string{"--gpu-architecture=compute_90"}, "13.0"),
		"arch":    ptxKey(src, []string{"--gpu-architecture=compute_80"}, "13.0"),
		"version": ptxKey(src, []string{"--gpu-architecture=compute_90"}, "12.8"),
		// Length prefixes keep parts from running into each other.
		"split": ptxKey(src, []string{"--gpu-architecture=compute_9", "0"}, "13.0"),
	} {
		if k == base {
			t.Errorf("changing the %s does not change the key", name)
		}
	}
	if !strings.Contains(src, "#line 1 \"attention.cu\"") || !strings.Contains(src, "k_adamw") {
		t.Fatal("kernelSource lacks a file")
	}
}

func TestPTXCacheUnderUserCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	dir := ptxDir()
	if want := filepath.Join(home, "mascot", "cuda-ptx"); dir != want {
		t.Fatalf("ptxDir = %s, want %s", dir, want)
	}
	key := ptxKey("src", nil, "13.0")
	if _, ok := readPTX(dir, key); ok {
		t.Fatal("a PTX was read from an empty cache")
	}
	ptx := []byte("//\n.version 8.0\n.visible .entry k_add(\n)\n")
	if err := writePTX(dir, key, ptx); err != nil {
		t.Fatal(err)
	}
	got, ok := readPTX(dir, key)
	if !ok || string(got) != string(ptx) {
		t.Fatalf("read back %q, %v", got, ok)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != key+".ptx" {
		t.Fatalf("cache holds %v, want only %s.ptx (no temporary files left)", ents, key)
	}
	// A file that is not PTX (truncated, overwritten) is a miss, so the
	// kernels are compiled again rather than loaded from it.
	if err := os.WriteFile(ptxPath(dir, key), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := readPTX(dir, key); ok {
		t.Fatal("a corrupt cache file was read as PTX")
	}
}

// driverOnPath reports whether the loader finds a real CUDA driver, in
// which case the tests that expect the search to fail do not apply.
func driverOnPath() bool {
	_, err := dl.Open([]string{"libcuda.so.1", "libcuda.so"}, nil)
	return err == nil
}

func TestLibrarySearchNamesEveryFileTried(t *testing.T) {
	if driverOnPath() {
		t.Skip("a CUDA driver is on the loader's path here, so the search does not fail")
	}
	empty := t.TempDir()
	t.Setenv(EnvLibs, empty)
	_, err := FindLibraries()
	if err == nil {
		t.Fatal("found CUDA libraries in an empty directory")
	}
	msg := err.Error()
	for _, want := range []string{
		EnvLibs, empty,
		"the CUDA driver", "libcuda.so.1", filepath.Join(empty, "libcuda.so.1"),
		"cuBLASLt", filepath.Join(empty, "libcublasLt.so.13"), filepath.Join(empty, "libcublasLt.so.12"),
		"cuBLAS", filepath.Join(empty, "libcublas.so.13"),
		"NVRTC", filepath.Join(empty, "libnvrtc.so.13"), filepath.Join(empty, "libnvrtc.so"),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not name %q:\n%s", want, msg)
		}
	}
}

func TestLibrarySearchReportsAFileThatIsNoLibrary(t *testing.T) {
	if driverOnPath() {
		t.Skip("a CUDA driver is on the loader's path here, so the search does not reach the fake one")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "libcuda.so.1")
	if err := os.WriteFile(fake, []byte("not an ELF file\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvLibs, "/nonexistent-mascot-dir:"+dir)
	_, err := FindLibraries()
	if err == nil {
		t.Fatal("a text file was loaded as the CUDA driver")
	}
	msg := err.Error()
	for _, want := range []string{fake, "/nonexistent-mascot-dir/libcuda.so.1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not name %s:\n%s", want, msg)
		}
	}
	// The loader's own reason for rejecting the file is passed on.
	if !strings.Contains(msg, "invalid ELF header") && !strings.Contains(msg, "file too short") {
		t.Errorf("error does not say why %s was rejected:\n%s", fake, msg)
	}
}

func TestSOSuffix(t *testing.T) {
	for in, want := range map[string]string{"libcublasLt.so.13": ".13", "/x/libcublasLt.so.12.8.4": ".12.8.4", "libcublasLt.so": ""} {
		if got := soSuffix(in); got != want {
			t.Errorf("soSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScatterPlanKeepsIndexOrder(t *testing.T) {
	ix := []int32{3, 1, 3, 0, 1, 3}
	rows, starts, srcs := scatterPlan(ix)
	if !slices.Equal(rows, []int32{0, 1, 3}) || !slices.Equal(starts, []int32{0, 1, 3, 6}) ||
		!slices.Equal(srcs, []int32{3, 1, 4, 0, 2, 5}) {
		t.Fatalf("plan rows %v starts %v srcs %v", rows, starts, srcs)
	}
	// Replaying the plan as the kernel does adds the same values in the
	// same order as dst[idx[i]] += src[i].
	src := []float32{1e8, 1, -1e8, 0.5, 3, 1e-3}
	want := make([]float32, 4)
	for i, r := range ix {
		want[r] += src[i]
	}
	got := make([]float32, 4)
	for u, r := range rows {
		acc := got[r]
		for _, s := range srcs[starts[u]:starts[u+1]] {
			acc += src[s]
		}
		got[r] = acc
	}
	if !slices.Equal(got, want) {
		t.Fatalf("replayed %v, want %v (bit for bit)", got, want)
	}
}

func TestAdamScalarsMatchTheCPUForms(t *testing.T) {
	a := compute.Adam{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Step: 3}
	s := adamScalars(a)
	if s.gscale != 1 {
		t.Errorf("GradScale 0 gives scale %g, want 1", s.gscale)
	}
	if want := float32(1e-3 / (1 - math.Pow(0.9, 3))); s.step != want {
		t.Errorf("step %g, want %g", s.step, want)
	}
	if want := float32(math.Sqrt(1 - math.Pow(0.999, 3))); s.bc2 != want {
		t.Errorf("bc2 %g, want %g", s.bc2, want)
	}
	if want := float32(1 - 1e-3*0.01); s.decay != want || s.c1 != float32(1-0.9) {
		t.Errorf("decay %g c1 %g", s.decay, s.c1)
	}
}
