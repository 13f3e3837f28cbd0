//go:build cuda

package train

import (
	"errors"

	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// newAutodiff refuses: builds with -tags cuda leave trainer/autodiff out,
// because the tag would also build gorgonia's own CUDA path (which needs
// CUDA's headers); trainer/net on the cuda backend is the GPU network.
func newAutodiff(Options, baseSource, qwen3.Config, pass.Trainable, bool) (Network, error) {
	return nil, errors.New("the autodiff network is not in builds with -tags cuda (they leave gorgonia out); use the default network")
}
