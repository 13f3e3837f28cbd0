package optim

import (
	"fmt"
	"math"
)

// Param is one parameter as the optimizer sees it.
type Param struct {
	// Name identifies the parameter in the optimizer state.
	Name string
	// Value is updated in place.
	Value []float32
	// Grad holds the accumulated gradient; Step zeroes it.
	Grad []float64
	// Decay says whether weight decay applies to this parameter.
	Decay bool
}

// Config holds AdamW, clipping and schedule settings. Zero fields take
// transformers' defaults except LR, which must be set.
type Config struct {
	LR          float64
	Beta1       float64 // default 0.9
	Beta2       float64 // default 0.999
	Eps         float64 // default 1e-8
	WeightDecay float64 // default 0
	// MaxGradNorm is the global L2 clip (default 1.0; negative disables).
	MaxGradNorm float64
	// WarmupSteps and TotalSteps shape the linear schedule; TotalSteps 0
	// keeps the learning rate constant after warmup.
	WarmupSteps, TotalSteps int
}

func (c Config) withDefaults() Config {
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.999
	}
	if c.Eps == 0 {
		c.Eps = 1e-8
	}
	if c.MaxGradNorm == 0 {
		c.MaxGradNorm = 1
	}
	return c
}

// State is the optimizer's resumable state.
type State struct {
	// Step counts completed optimizer steps.
	Step int
	// M and V are Adam's first and second moments by parameter name.
	M, V map[string][]float64
}

// Optimizer is AdamW (torch.optim.AdamW semantics) with clipping and a
// linear schedule.
type Optimizer struct {
	Config Config
	State  State
	params []Param
}

// New returns an optimizer over params.
func New(c Config, params []Param) (*Optimizer, error) {
	if c.LR <= 0 {
		return nil, fmt.Errorf("creating optimizer: learning rate %g must be positive", c.LR)
	}
	o := &Optimizer{Config: c.withDefaults(), params: params, State: State{M: map[string][]float64{}, V: map[string][]float64{}}}
	for _, p := range params {
		if len(p.Grad) != len(p.Value) {
			return nil, fmt.Errorf("creating optimizer: %s has %d values and %d gradients", p.Name, len(p.Value), len(p.Grad))
		}
		o.State.M[p.Name] = make([]float64, len(p.Value))
		o.State.V[p.Name] = make([]float64, len(p.Value))
	}
	return o, nil
}

// Restore replaces the state (resume); moments must match the parameters.
func (o *Optimizer) Restore(s State) error {
	for _, p := range o.params {
		if len(s.M[p.Name]) != len(p.Value) || len(s.V[p.Name]) != len(p.Value) {
			return fmt.Errorf("restoring optimizer: state for %s does not match its %d values", p.Name, len(p.Value))
		}
	}
	o.State = s
	return nil
}

// LR returns the learning rate the next Step will use.
func (o *Optimizer) LR() float64 {
	return o.Config.LR * LinearSchedule(o.State.Step, o.Config.WarmupSteps, o.Config.TotalSteps)
}

// StepStats reports one optimizer step.
type StepStats struct {
	// GradNorm is the global L2 norm before clipping.
	GradNorm float64
	// LR is the learning rate used.
	LR float64
}

// Step clips the accumulated gradients to MaxGradNorm, applies one AdamW
// update with the scheduled learning rate and zeroes the gradients.
func (o *Optimizer) Step() StepStats {
	c := o.Config
	norm := GlobalNorm(o.params)
	clip := 1.0
	if c.MaxGradNorm > 0 {
		clip = math.Min(1, c.MaxGradNorm/(norm+1e-6)) // torch clip_grad_norm_
	}
	lr := o.LR()
	o.State.Step++
	t := float64(o.State.Step)
	bc1 := 1 - math.Pow(c.Beta1, t)
	bc2 := 1 - math.Pow(c.Beta2, t)
	for _, p := range o.params {
		m, v := o.State.M[p.Name], o.State.V[p.Name]
		for i, g := range p.Grad {
			g *= clip
			x := float64(p.Value[i])
			if p.Decay && c.WeightDecay != 0 {
				x *= 1 - lr*c.WeightDecay
			}
			m[i] = c.Beta1*m[i] + (1-c.Beta1)*g
			v[i] = c.Beta2*v[i] + (1-c.Beta2)*g*g
			denom := math.Sqrt(v[i])/math.Sqrt(bc2) + c.Eps
			x -= lr / bc1 * m[i] / denom
			p.Value[i] = float32(x)
		}
		clear(p.Grad)
	}
	return StepStats{GradNorm: norm, LR: lr}
}

// GlobalNorm is the L2 norm of every gradient together.
func GlobalNorm(params []Param) float64 {
	var s float64
	for _, p := range params {
		for _, g := range p.Grad {
			s += g * g
		}
	}
	return math.Sqrt(s)
}

// LinearSchedule is transformers' get_linear_schedule_with_warmup
// multiplier at optimizer step k (0-based): k/warmup during warmup, then a
// linear decay to 0 at total. total ≤ 0 means no decay.
func LinearSchedule(k, warmup, total int) float64 {
	if k < warmup {
		return float64(k) / float64(max(1, warmup))
	}
	if total <= 0 {
		return 1
	}
	return math.Max(0, float64(total-k)/float64(max(1, total-warmup)))
}
