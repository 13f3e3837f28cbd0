//go:build !cuda

package autodiff

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// scoreSeedRun is what the score-seed op of one compiled graph reads in a
// pass: fixed seeds (Backward) or a function of the pass's own scores
// (BackwardScores). Model.run sets it before each RunAll.
type scoreSeedRun struct {
	B, T  int
	fixed [][]float64
	fn    func(score [][]float64) ([][]float64, error)
	err   error // fn's error in this pass, which gorgonia would flatten
}

// scoreSeed yields the seed of the score surrogate Σ seed·score. It runs
// in the forward half of the tape, after the scores, so the seeds may
// depend on them; it passes no gradient back (the seeds are constants of
// the surrogate), so the score's gradient is the seed itself.
type scoreSeed struct{ st *scoreSeedRun }

func (op scoreSeed) Arity() int { return 1 }
func (op scoreSeed) Type() hm.Type {
	t := G.TensorType{Dims: 1, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}
func (op scoreSeed) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op scoreSeed) ReturnsPtr() bool      { return false }
func (op scoreSeed) CallsExtern() bool     { return false }
func (op scoreSeed) OverwritesInput() int  { return -1 }
func (op scoreSeed) WriteHash(h hash.Hash) { fmt.Fprintf(h, "ScoreSeed{%p}", op.st) }
func (op scoreSeed) Hashcode() uint32      { return hashOf(op) }
func (op scoreSeed) String() string        { return "ScoreSeed" }

// DiffWRT and SymDiff make the op a constant of differentiation.
func (op scoreSeed) DiffWRT(int) []bool { return []bool{false} }
func (op scoreSeed) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("score seeds are not differentiable")
}

func (op scoreSeed) Do(in ...G.Value) (G.Value, error) {
	st := op.st
	seeds := st.fixed
	if st.fn != nil {
		sc := floats(in[0])
		rows := make([][]float64, st.B)
		for r := range rows {
			rows[r] = sc[r*st.T : (r+1)*st.T]
		}
		var err error
		if seeds, err = st.fn(rows); err != nil {
			st.err = err
			return nil, fmt.Errorf("seeding the score gradient: %w", err)
		}
	}
	flat := flatten(seeds, st.B, st.T, nil)
	if in[0].Dtype() == tensor.Float64 {
		return tensor.New(tensor.WithShape(in[0].Shape().Clone()...), tensor.WithBacking(flat)), nil
	}
	f := make([]float32, len(flat))
	for i, v := range flat {
		f[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(in[0].Shape().Clone()...), tensor.WithBacking(f)), nil
}
