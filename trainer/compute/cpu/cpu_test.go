package cpu_test

import (
	"os"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/computetest"
	"mascot.dev/mascot/trainer/compute/cpu"
)

// exactBF16 holds the CPU to the F32 tolerance on BF16 products too: it
// widens the weight exactly and multiplies in float32.
var exactBF16 = computetest.Tolerances{F32: 1e-5, Products: 1e-5, BF16: 1e-5}

func opener(o cpu.Options) func(t *testing.T) compute.Backend {
	return func(t *testing.T) compute.Backend {
		b, err := cpu.New(o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestConformance runs the suite on the BLAS the environment selects (the
// built-in sgemm unless MASCOT_BLAS says otherwise; .ci/run runs it again
// with MASCOT_BLAS=gonum). TestConformanceBuiltin runs it on the built-in
// sgemm whatever the environment, TestConformanceOpenBLAS on OpenBLAS
// where it is installed (always under MASCOT_FULL=1).
func TestConformance(t *testing.T) {
	b := opener(cpu.Options{})(t)
	t.Log(b.Describe())
	computetest.RunWith(t, opener(cpu.Options{}), exactBF16)
}

func TestConformanceBuiltin(t *testing.T) {
	computetest.RunWith(t, opener(cpu.Options{BLAS: "builtin"}), exactBF16)
	computetest.RunWith(t, opener(cpu.Options{BLAS: "builtin", Threads: 3,
		Blocks: cpu.Blocks{AttnQ: 5, HeadRows: 7, HeadVocab: 11, GemmConvert: 200}}), exactBF16)
}

func TestConformanceOpenBLAS(t *testing.T) {
	if os.Getenv("MASCOT_FULL") != "1" && !openBLASPresent() {
		t.Skip("OpenBLAS is not installed (apt-get install libopenblas0); MASCOT_FULL=1 makes this an error")
	}
	computetest.RunWith(t, opener(cpu.Options{BLAS: "openblas"}), exactBF16)
}

// TestConformanceSmallBlocks makes every block tiny and uses three
// threads, so the suite's small shapes cross block and thread edges.
func TestConformanceSmallBlocks(t *testing.T) {
	o := cpu.Options{Threads: 3, Blocks: cpu.Blocks{AttnQ: 5, HeadRows: 7, HeadVocab: 11, GemmConvert: 200}}
	computetest.RunWith(t, opener(o), exactBF16)
}

// TestThreadCountsAgree compares one thread with three through the
// cross-backend helper.
func TestThreadCountsAgree(t *testing.T) {
	one, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := cpu.New(cpu.Options{Threads: 3, Blocks: cpu.Blocks{AttnQ: 16, HeadRows: 9, HeadVocab: 100, GemmConvert: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	computetest.Compare(t, one, three, exactBF16)
}

func TestBLASSelection(t *testing.T) {
	g, err := cpu.New(cpu.Options{BLAS: "gonum"})
	if err != nil {
		t.Fatal(err)
	}
	if g.BLAS() != "gonum" || !strings.Contains(g.Describe(), "gonum") {
		t.Errorf("BLAS %q, Describe %q", g.BLAS(), g.Describe())
	}
	bi, err := cpu.New(cpu.Options{BLAS: "builtin", Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := bi.Describe(); bi.BLAS() != "builtin" || !strings.Contains(d, "built-in sgemm") || !strings.Contains(d, "3 threads") {
		t.Errorf("BLAS %q, Describe %q", bi.BLAS(), d)
	}
	if _, err := cpu.New(cpu.Options{BLAS: "mkl"}); err == nil || !strings.Contains(err.Error(), "mkl") {
		t.Errorf("an unknown BLAS: %v", err)
	}
	t.Setenv(cpu.EnvBLAS, "")
	if d, err := cpu.New(cpu.Options{}); err != nil || d.BLAS() != "builtin" {
		t.Errorf("the default BLAS: %v, %v; want builtin", d, err)
	}
	t.Setenv(cpu.EnvBLAS, "gonum")
	if b, err := cpu.New(cpu.Options{}); err != nil || b.BLAS() != "gonum" {
		t.Errorf("%s=gonum: %v, %v", cpu.EnvBLAS, b, err)
	}
	if os.Getenv("MASCOT_FULL") == "1" || openBLASPresent() {
		b, err := cpu.New(cpu.Options{BLAS: "openblas", Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if d := b.Describe(); !strings.Contains(d, "OpenBLAS") || !strings.Contains(d, "2 threads") {
			t.Errorf("Describe %q names neither OpenBLAS nor the thread count", d)
		}
	}
}

func openBLASPresent() bool {
	_, err := cpu.New(cpu.Options{BLAS: "openblas"})
	return err == nil
}
