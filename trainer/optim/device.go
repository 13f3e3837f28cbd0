package optim

import (
	"fmt"
	"math"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
)

// Device is the Optimizer's AdamW step on a compute.Backend: the values,
// gradients and both moments (float32) stay on the backend; the global
// gradient norm is the square root of the backend's SumSquares over every
// gradient, and clipping folds into compute.Adam's GradScale. The
// arithmetic is torch.optim.AdamW's, with the same defaults, clipping and
// schedule as Optimizer.
type Device struct {
	Config Config
	be     compute.Backend
	params []pass.Param
	m, v   []compute.Tensor
	step   int
}

// NewDevice returns an optimizer over params, which live on be; the
// moments start at zero.
func NewDevice(c Config, be compute.Backend, params []pass.Param) (*Device, error) {
	if c.LR <= 0 {
		return nil, fmt.Errorf("creating optimizer: learning rate %g must be positive", c.LR)
	}
	if be == nil {
		return nil, fmt.Errorf("creating optimizer: no backend")
	}
	o := &Device{Config: c.withDefaults(), be: be, params: params}
	for _, p := range params {
		if p.Value.Len() != p.Grad.Len() {
			return nil, fmt.Errorf("creating optimizer: %s has %d values and %d gradients", p.Name, p.Value.Len(), p.Grad.Len())
		}
		o.m = append(o.m, be.Alloc(compute.F32, p.Value.Len()))
		o.v = append(o.v, be.Alloc(compute.F32, p.Value.Len()))
	}
	return o, be.Sync()
}

// Close frees the moments.
func (o *Device) Close() {
	for i := range o.m {
		o.be.Free(o.m[i])
		o.be.Free(o.v[i])
	}
	o.m, o.v = nil, nil
}

// Steps is the number of completed optimizer steps.
func (o *Device) Steps() int { return o.step }

// LR returns the learning rate the next Step will use.
func (o *Device) LR() float64 {
	return o.Config.LR * LinearSchedule(o.step, o.Config.WarmupSteps, o.Config.TotalSteps)
}

// GradNorm is the global L2 norm of the accumulated gradients.
func (o *Device) GradNorm() float64 {
	var s float64
	for _, p := range o.params {
		s += o.be.SumSquares(p.Grad)
	}
	return math.Sqrt(s)
}

// Step clips the accumulated gradients to MaxGradNorm (torch's
// clip_grad_norm_: scale min(1, max/(norm+1e-6))), applies one AdamW
// update with the scheduled learning rate and zeroes the gradients.
func (o *Device) Step() (StepStats, error) {
	c := o.Config
	norm := o.GradNorm()
	clip := 1.0
	if c.MaxGradNorm > 0 {
		clip = math.Min(1, c.MaxGradNorm/(norm+1e-6))
	}
	lr := o.LR()
	o.step++
	for i, p := range o.params {
		wd := 0.0
		if p.Decay {
			wd = c.WeightDecay
		}
		o.be.AdamW(p.Value, p.Grad, o.m[i], o.v[i], compute.Adam{LR: lr, Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Eps,
			WeightDecay: wd, Step: o.step, GradScale: clip})
		o.be.Zero(p.Grad)
	}
	if err := o.be.Sync(); err != nil {
		return StepStats{}, fmt.Errorf("optimizer step %d: %w", o.step, err)
	}
	return StepStats{GradNorm: norm, LR: lr}, nil
}

// DeviceState is a Device's resumable state: the step count and both
// moments by parameter name, in float32.
type DeviceState struct {
	Step int
	M, V map[string][]float32
}

// State downloads the state.
func (o *Device) State() DeviceState {
	s := DeviceState{Step: o.step, M: map[string][]float32{}, V: map[string][]float32{}}
	for i, p := range o.params {
		m, v := make([]float32, p.Value.Len()), make([]float32, p.Value.Len())
		o.be.Download(m, o.m[i])
		o.be.Download(v, o.v[i])
		s.M[p.Name], s.V[p.Name] = m, v
	}
	return s
}

// Restore uploads a state; its moments must match the parameters.
func (o *Device) Restore(s DeviceState) error {
	for _, p := range o.params {
		if len(s.M[p.Name]) != p.Value.Len() || len(s.V[p.Name]) != p.Value.Len() {
			return fmt.Errorf("restoring optimizer: state for %s does not match its %d values", p.Name, p.Value.Len())
		}
	}
	for i, p := range o.params {
		o.be.Upload(o.m[i], s.M[p.Name])
		o.be.Upload(o.v[i], s.V[p.Name])
	}
	o.step = s.Step
	return o.be.Sync()
}
