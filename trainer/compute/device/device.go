// Package device opens the compute backend a training stage names in its
// device field: "cpu" (trainer/compute/cpu) or "cuda"
// (trainer/compute/cuda, in binaries built with -tags cuda).
//
// Layer: trainer, above the backends and below the training loops and
// the runner's training stages, which call Check in a run's preflight and
// Open when a stage trains.
package device

import (
	"fmt"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/compute/cuda"
)

// Names are the devices a stage may ask for, the default first.
var Names = []string{"cpu", "cuda"}

// Check reports whether name can be opened here, without allocating on it:
// for cuda, that this binary holds the backend, the CUDA libraries load
// and the driver sees a GPU (the error says which is missing, and which
// files were tried).
func Check(name string) error {
	switch name {
	case "", "cpu":
		return nil
	case "cuda":
		if _, err := cuda.Probe(); err != nil {
			return fmt.Errorf("device \"cuda\" is not available here: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown device %q (want cpu or cuda)", name)
}

// Open returns a backend on name with its default options. The caller
// owns it; a cuda backend also has a Close method.
func Open(name string) (compute.Backend, error) {
	switch name {
	case "", "cpu":
		return cpu.New(cpu.Options{})
	case "cuda":
		be, err := cuda.Open()
		if err != nil {
			return nil, fmt.Errorf("opening device \"cuda\": %w", err)
		}
		return be, nil
	}
	return nil, fmt.Errorf("unknown device %q (want cpu or cuda)", name)
}
