package net

import "mascot.dev/mascot/trainer/qwen3"

// Counters are what the model's passes cost since it was built.
type Counters struct {
	// Hardware counts the floating-point operations (2 per multiply-add)
	// the backend was asked to do: every matrix product, attention over
	// the visited (query, key) pairs and the LM head, padding and the
	// checkpointing recompute included.
	Hardware float64
	// Model counts the operations the passes' mathematics needs, on the
	// rows' real tokens: the forward, and for a backward the input
	// gradients (as much again) plus the trained weights' gradients (their
	// forward share again), without recompute (docs/design/trainer-compute.md).
	Model float64
	// Tokens counts the rows' real tokens.
	Tokens int64
}

// Counters returns the cost counters.
func (m *Model) Counters() Counters { return m.flops }

// modelFLOPs is Counters.Model of one pass.
func (m *Model) modelFLOPs(pl *plan, grad bool) float64 {
	d := m.d
	var proj, adapt float64
	for p := qwen3.Proj(0); p < qwen3.NumProj; p++ {
		out, in := d.shape(p)
		proj += 2 * float64(out*in)
		if m.Options.LoRA != nil && m.Options.LoRA.Adapts(p.Name()) {
			adapt += 2 * float64(m.Options.LoRA.R*(in+out))
		}
	}
	tok := float64(pl.realTokens)
	var attn, head float64
	for _, g := range pl.groups {
		for _, L := range g.lens {
			l := float64(L)
			attn += 4 * float64(d.hd*d.H) * l * (l + 1) / 2
		}
		if pl.lm {
			head += 2 * float64(len(g.sel)*d.V*d.D)
		} else {
			head += 2 * float64(len(g.sel)*d.D)
		}
	}
	L := float64(d.L)
	fwd := tok*L*(proj+adapt) + L*attn + head
	if !grad {
		return fwd
	}
	weights := tok * L * adapt
	if m.embed.trainable { // TrainAll: every projection and the head
		weights += tok*L*proj + head
	}
	return fwd + fwd + weights
}
