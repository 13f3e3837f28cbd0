//go:build !cuda

package autodiff

import (
	"fmt"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/pass"
)

// Backend returns the CPU backend whose tensors alias this model's
// trainable parameters and float32 gradients (TrainParams), so that
// trainer/train's optimizer, which runs on a compute.Backend, updates
// the graph's parameters in place. A float64 model has none (nil).
func (m *Model) Backend() compute.Backend {
	if m.Options.Float64 {
		return nil
	}
	if m.be == nil {
		be, err := cpu.New(cpu.Options{})
		if err != nil {
			panic(fmt.Sprintf("opening the CPU backend: %v", err)) // cpu.New fails only on a bad MASCOT_BLAS
		}
		m.be = be
	}
	return m.be
}

// TrainParams lists the trainable parameters as tensors of Backend():
// values aliasing the graph's parameters, gradients aliasing their float32
// accumulators. A float64 model has none.
func (m *Model) TrainParams() []pass.Param {
	be, ok := m.Backend().(*cpu.Backend)
	if !ok {
		return nil
	}
	var out []pass.Param
	for _, p := range m.Params.Trainable() {
		if p.tensors == nil {
			p.tensors = &[2]compute.Tensor{be.AliasF32(p.F32()), be.AliasF32(p.grad32)}
		}
		out = append(out, pass.Param{Name: p.Name, Decay: p.Decay, Value: p.tensors[0], Grad: p.tensors[1]})
	}
	return out
}
