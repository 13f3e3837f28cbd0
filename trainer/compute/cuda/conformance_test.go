//go:build cuda

package cuda_test

import (
	"os"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/computetest"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/compute/cuda"
	"mascot.dev/mascot/trainer/compute/cuda/cudatest"
)

// These tests run on the GPU when MASCOT_GPU=1 and on the host emulator
// (cudatest) otherwise.

func TestMain(m *testing.M) {
	code := m.Run()
	cudatest.Cleanup()
	os.Exit(code)
}

func opener(o cuda.Options) func(t *testing.T) compute.Backend {
	return func(t *testing.T) compute.Backend { return cudatest.Open(t, o) }
}

func TestOpensAndDescribes(t *testing.T) {
	b := cudatest.Open(t, cuda.Options{Precision: cuda.F32})
	d := b.Describe()
	t.Log(d)
	if !strings.Contains(d, "kernels ") || !strings.Contains(d, "f32 products") {
		t.Fatalf("Describe = %s", d)
	}
	if cudatest.Emulated(b) && !strings.Contains(d, "mascot host emulator (sm_90") {
		t.Fatalf("Describe = %s", d)
	}
}

// TestConformance runs computetest: the F32 precision against the CPU
// backend's tolerances, the BF16 one against BF16Tolerances. The scratch
// budget of a few KiB makes attention work through one (row, kv head)
// pair at a time and the LM head through a few rows, so the chunk loops
// run on the suite's small shapes.
func TestConformance(t *testing.T) {
	if !cudatest.GPU() {
		testgate.Long(t, "computetest on the CUDA emulator, about a minute of CPU per precision")
	}
	t.Run("f32", func(t *testing.T) {
		computetest.RunWith(t, opener(cuda.Options{Precision: cuda.F32, ScratchBytes: 4 << 10}), computetest.Default)
	})
	t.Run("bf16", func(t *testing.T) {
		computetest.RunWith(t, opener(cuda.Options{Precision: cuda.BF16, ScratchBytes: 4 << 10}), cuda.BF16Tolerances)
	})
}

// TestAgainstCPU runs every case on the CPU backend and on the GPU with
// the default options and compares them (the GPU check's "every kernel
// against the CPU on random inputs").
func TestAgainstCPU(t *testing.T) {
	cudatest.RequireGPU(t)
	c, err := cpu.New(cpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	computetest.Compare(t, c, cudatest.Open(t, cuda.Options{}), cuda.BF16Tolerances)
}
