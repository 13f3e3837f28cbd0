//go:build !cuda

package autodiff

import (
	"context"
	"fmt"
	"runtime/debug"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// Batch, RunOptions and Outputs are shared with trainer/net. This network
// computes LogP and Score at every position whatever RunOptions.LogPFrom
// and ScoreAt ask, so the wanted positions hold the same values as
// trainer/net's.
type (
	Batch      = pass.Batch
	RunOptions = pass.RunOptions
	Outputs    = pass.Outputs
)

// Forward runs the model without gradients.
func (m *Model) Forward(ctx context.Context, b Batch, o RunOptions) (*Outputs, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("running forward: %w", err)
	}
	out, err := m.run(b, o, false, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("running forward: %w", err)
	}
	return out, nil
}

// Backward runs forward and backward on the surrogate
// Σ seedLogP·LogP + Σ seedScore·Score and adds its gradient to every
// trainable Param.Grad. A loss L(LogP, Score) whose derivatives are the
// seeds therefore gets its exact gradient; see the package doc. Either
// seed may be nil (treated as zeros). The pass's outputs are returned.
func (m *Model) Backward(ctx context.Context, b Batch, o RunOptions, seedLogP, seedScore [][]float64) (*Outputs, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	out, err := m.run(b, o, true, seedLogP, seedScore, nil)
	if err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	return out, nil
}

// BackwardScores is Backward for a loss of the score head whose seeds
// depend on the scores themselves (a reward model's Bradley–Terry loss):
// seed receives this pass's scores [B][T] midway through the pass and
// returns the score seeds, so the loss needs no separate Forward. The
// gradient and outputs are those of Forward followed by Backward with
// seed's result.
func (m *Model) BackwardScores(ctx context.Context, b Batch, o RunOptions, seed func(score [][]float64) ([][]float64, error)) (*Outputs, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	if !m.Options.ScoreHead {
		return nil, fmt.Errorf("running backward: BackwardScores needs a score head")
	}
	out, err := m.run(b, o, true, nil, nil, seed)
	if err != nil {
		return nil, fmt.Errorf("running backward: %w", err)
	}
	return out, nil
}

func (m *Model) graph(key graphKey) (*graph, error) {
	if g, ok := m.graphs[key]; ok {
		return g, nil
	}
	g, err := m.build(key)
	if err != nil {
		return nil, err
	}
	// A compiled graph keeps every intermediate value of its last pass, so
	// graphs of other shapes are dropped, oldest first, to stay within
	// MaxGraphs and MaxCachedTokens. The new graph and its same-shape
	// partner (the forward of a backward, or the reverse) always stay.
	tokens := key.B * key.T
	for _, k := range m.order {
		tokens += k.B * k.T
	}
	freed := 0
	keep := m.order[:0]
	for i, old := range m.order {
		over := len(m.order)-i+len(keep) >= MaxGraphs || tokens > MaxCachedTokens
		if !over || (old.B == key.B && old.T == key.T) {
			keep = append(keep, old)
			continue
		}
		m.graphs[old].vm.Close()
		delete(m.graphs, old)
		tokens -= old.B * old.T
		freed += old.B * old.T
	}
	m.order = keep
	if freed >= bigGraphTokens {
		// Hand the dropped graphs' memory back before the new graph's first
		// pass allocates its own, so the peak holds one large graph, not two.
		debug.FreeOSMemory()
	}
	m.graphs[key] = g
	m.order = append(m.order, key)
	return g, nil
}

func (m *Model) dense(data []float64, shape ...int) *tensor.Dense {
	if m.Options.Float64 {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
	}
	f := make([]float32, len(data))
	for i, v := range data {
		f[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
}

func (m *Model) scalarValue(v float64) any {
	if m.Options.Float64 {
		return v
	}
	return float32(v)
}

func (m *Model) run(b Batch, o RunOptions, grad bool, seedL, seedS [][]float64, seedFn func([][]float64) ([][]float64, error)) (*Outputs, error) {
	d := m.dims
	B, T := len(b.IDs), b.T
	if T == 0 {
		for _, row := range b.IDs {
			T = max(T, len(row))
		}
	}
	if B == 0 {
		return nil, fmt.Errorf("empty batch")
	}
	N := B * T
	ids, targets := make([]int, N), make([]int, N)
	for r, row := range b.IDs {
		if len(row) == 0 || len(row) > T {
			return nil, fmt.Errorf("row %d has %d tokens, want 1..%d", r, len(row), T)
		}
		for t, id := range row {
			if id < 0 || id >= d.V {
				return nil, fmt.Errorf("row %d position %d: token %d outside vocab %d", r, t, id, d.V)
			}
			ids[r*T+t] = id
			if t+1 < len(row) {
				targets[r*T+t] = row[t+1]
			}
		}
	}
	gr, err := m.graph(graphKey{B: B, T: T, grad: grad})
	if err != nil {
		return nil, err
	}
	gr.attn.pass++
	gr.attn.lens = gr.attn.lens[:0]
	for _, row := range b.IDs {
		gr.attn.lens = append(gr.attn.lens, len(row))
	}
	temp := o.Temperature
	if temp == 0 {
		temp = 1
	}
	scale := 0.0
	if m.Options.LoRA != nil && !o.DisableAdapter {
		scale = m.Options.LoRA.Scaling()
	}
	lets := []struct {
		n *G.Node
		v any
	}{
		{gr.ids, tensor.New(tensor.WithShape(N), tensor.WithBacking(ids))},
		{gr.loraScale, m.scalarValue(scale)},
	}
	if gr.dropMasks != nil {
		// The masks are lora.DropoutSeed's, element t·in+j of each row, so
		// that trainer/net drops the same inputs.
		p := float32(m.Options.LoRA.Dropout)
		keep := float32(1 / (1 - m.Options.LoRA.Dropout))
		for i := 0; i < d.L; i++ {
			for _, proj := range m.Options.LoRA.TargetList() {
				in, _ := d.projShape(proj)
				pj, _ := qwen3.ProjByName(proj)
				v := make([]float64, N*in)
				for r := range B {
					seed := lora.DropoutSeed(o.DropoutSeed, i, pj, r)
					row := v[r*T*in : (r+1)*T*in]
					for j := range row {
						switch {
						case !o.Dropout:
							row[j] = 1
						case compute.Keep(seed, j, p):
							row[j] = float64(keep)
						}
					}
				}
				lets = append(lets, struct {
					n *G.Node
					v any
				}{gr.dropMasks[modulePath(i, proj)], m.dense(v, N, in)})
			}
		}
	}
	if grad {
		if gr.seedLogP != nil {
			lets = append(lets, struct {
				n *G.Node
				v any
			}{gr.seedLogP, m.dense(flatten(seedL, B, T, b.IDs), N, 1)})
		}
		if gr.scoreSeed != nil {
			gr.scoreSeed.fixed, gr.scoreSeed.fn, gr.scoreSeed.err = seedS, seedFn, nil
		}
	}
	if gr.head != nil {
		gr.head.targets, gr.head.invTemp = targets, 1/temp
	}
	gr.vm.Reset()
	for _, l := range lets {
		if err := G.Let(l.n, l.v); err != nil {
			return nil, fmt.Errorf("setting input %s: %w", l.n.Name(), err)
		}
	}
	if err := gr.vm.RunAll(); err != nil {
		if gr.scoreSeed != nil && gr.scoreSeed.err != nil {
			return nil, fmt.Errorf("seeding the score gradient: %w", gr.scoreSeed.err)
		}
		return nil, fmt.Errorf("executing graph: %w", err)
	}
	out := &Outputs{B: B, T: T}
	if gr.logp != nil {
		lp := floats(gr.logp.Value())
		out.LogP = make([][]float64, B)
		for r, row := range b.IDs {
			out.LogP[r] = make([]float64, T)
			copy(out.LogP[r][:len(row)-1], lp[r*T:r*T+len(row)-1])
		}
		if o.Logits {
			out.Logits = float32s(gr.logits.Value())
			for i := range out.Logits {
				out.Logits[i] *= float32(1 / temp)
			}
		}
	}
	if gr.score != nil {
		sc := floats(gr.score.Value())
		out.Score = make([][]float64, B)
		for r := range b.IDs {
			out.Score[r] = sc[r*T : (r+1)*T]
		}
	}
	if grad {
		for i, n := range gr.trainNodes {
			gv, err := n.Grad()
			if err != nil {
				return nil, fmt.Errorf("reading gradient of %s: %w", n.Name(), err)
			}
			p := gr.trainParams[i]
			for j, v := range floats(gv) {
				p.Grad[j] += v
			}
			if f, ok := gv.Data().([]float32); ok {
				for j, v := range f {
					p.grad32[j] += v
				}
			}
			// gorgonia accumulates into dual values across runs; we own accumulation.
			gv.(*tensor.Dense).Zero()
		}
	}
	return out, nil
}

// flatten copies a [B][T] seed into a flat slice (nil rows are zeros).
// With rows set, only positions t < len(row)-1, which predict a real
// token, are kept (LogP is defined as 0 elsewhere).
func flatten(s [][]float64, B, T int, rows [][]int) []float64 {
	out := make([]float64, B*T)
	for r := 0; r < B && r < len(s); r++ {
		n := T
		if rows != nil {
			n = len(rows[r]) - 1
		}
		copy(out[r*T:r*T+min(n, len(s[r]))], s[r])
	}
	return out
}

// floats copies a value's data out as float64.
func floats(v G.Value) []float64 {
	switch x := v.Data().(type) {
	case []float32:
		out := make([]float64, len(x))
		for i, f := range x {
			out[i] = float64(f)
		}
		return out
	case []float64:
		return append([]float64(nil), x...)
	case float32:
		return []float64{float64(x)}
	case float64:
		return []float64{x}
	}
	return nil
}

func float32s(v G.Value) []float32 {
	switch x := v.Data().(type) {
	case []float32:
		return append([]float32(nil), x...)
	case []float64:
		out := make([]float32, len(x))
		for i, f := range x {
			out[i] = float32(f)
		}
		return out
	}
	return nil
}
