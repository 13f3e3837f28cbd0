package device

import (
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/compute/cuda"
)

func TestCPUIsAlwaysThere(t *testing.T) {
	if err := Check("cpu"); err != nil {
		t.Fatal(err)
	}
	be, err := Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if be.Name() != "cpu" {
		t.Fatalf("Open(cpu) is %s", be.Name())
	}
}

func TestCudaMissingSaysWhat(t *testing.T) {
	if cuda.Built {
		if _, err := cuda.Probe(); err == nil {
			t.Skip("a GPU is usable here, so nothing is missing")
		}
	}
	t.Setenv(cuda.EnvLibs, t.TempDir())
	err := Check("cuda")
	if err == nil {
		t.Fatal("cuda reported available")
	}
	if !strings.Contains(err.Error(), `device "cuda" is not available here`) {
		t.Errorf("error %q", err)
	}
	if !cuda.Built && !strings.Contains(err.Error(), "-tags cuda") {
		t.Errorf("error does not say the build lacks the backend: %v", err)
	}
	if _, err := Open("cuda"); err == nil {
		t.Fatal("Open(cuda) succeeded where Check failed")
	}
}

func TestUnknownDevice(t *testing.T) {
	if err := Check("tpu"); err == nil || !strings.Contains(err.Error(), "want cpu or cuda") {
		t.Fatalf("Check(tpu) = %v", err)
	}
}
