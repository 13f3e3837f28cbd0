//go:build cuda

package cuda

import (
	"fmt"

	"mascot.dev/mascot/trainer/compute"
)

// Built says whether this binary holds the CUDA backend (-tags cuda).
const Built = true

// Probe checks, without allocating anything, that a CUDA backend can be
// opened here: the libraries load, the driver initialises, a GPU is
// visible and the kernels compile (or are in the PTX cache). It returns
// the device's description.
func Probe() (string, error) {
	st, err := process()
	if err != nil {
		return "", err
	}
	d := st.dev
	return fmt.Sprintf("%s (sm_%d%d, %.1f GiB)", d.name, d.major, d.minor, float64(d.memory)/(1<<30)), nil
}

// Open returns a backend with the default Options.
func Open() (compute.Backend, error) { return New(Options{}) }
