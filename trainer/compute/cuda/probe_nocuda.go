//go:build !cuda

package cuda

import (
	"fmt"

	"mascot.dev/mascot/trainer/compute"
)

// Built says whether this binary holds the CUDA backend (-tags cuda).
const Built = false

// errNotBuilt explains the missing backend, adding whether the libraries
// would have been found.
func errNotBuilt() error {
	msg := "this mascot was built without the CUDA backend (build it with: go build -tags cuda ./cmd/mascot)"
	if _, err := FindLibraries(); err != nil {
		return fmt.Errorf("%s, and %w", msg, err)
	}
	return fmt.Errorf("%s; the CUDA libraries are present", msg)
}

// Probe reports why no CUDA backend can be opened: this build lacks it.
func Probe() (string, error) { return "", errNotBuilt() }

// Open reports why no CUDA backend can be opened: this build lacks it.
func Open() (compute.Backend, error) { return nil, errNotBuilt() }
