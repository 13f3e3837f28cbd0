//go:build !cuda

package autodiff

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"mascot.dev/mascot/trainer/qwen3"
)

// headRun is what the log-prob op of one compiled graph reads about the
// current pass: each position's next token and the inverse temperature.
type headRun struct {
	targets []int
	invTemp float64
	lse     []float64 // per position, saved by the forward
}

// targetLogProb is log softmax(logits·invTemp)[target] per row of [N, V]
// logits, fused: it stores one log-sum-exp per row instead of the scaled
// logits, the log-softmax and their gradients (each [N, V], the largest
// tensors of a real vocabulary), and its gradient is
// invTemp·(onehot(target) − softmax) times the incoming gradient.
type targetLogProb struct{ st *headRun }

// targetLogProbs returns the [N, 1] log-probs of the run's targets.
func targetLogProbs(logits *G.Node, st *headRun) (*G.Node, error) {
	return G.ApplyOp(targetLogProb{st: st}, logits)
}

func tensor2() G.TensorType { return G.TensorType{Dims: 2, Of: hm.TypeVariable('a')} }

func (op targetLogProb) Arity() int { return 1 }
func (op targetLogProb) Type() hm.Type {
	t := tensor2()
	return hm.NewFnType(t, t)
}
func (op targetLogProb) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{in[0].(tensor.Shape)[0], 1}, nil
}
func (op targetLogProb) ReturnsPtr() bool      { return false }
func (op targetLogProb) CallsExtern() bool     { return false }
func (op targetLogProb) OverwritesInput() int  { return -1 }
func (op targetLogProb) WriteHash(h hash.Hash) { fmt.Fprintf(h, "TargetLogProb{%p}", op.st) }
func (op targetLogProb) Hashcode() uint32      { return hashOf(op) }
func (op targetLogProb) String() string        { return "TargetLogProb" }
func (op targetLogProb) DiffWRT(int) []bool    { return []bool{true} }

func (op targetLogProb) Do(in ...G.Value) (G.Value, error) {
	out := tensor.New(tensor.WithShape(in[0].Shape()[0], 1), tensor.Of(in[0].Dtype()))
	return op.UsePreallocDo(out, in...)
}

// UsePreallocDo writes the log-probs into prealloc and saves each row's
// log-sum-exp.
func (op targetLogProb) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	st := op.st
	N := in[0].Shape()[0]
	if len(st.targets) != N {
		return nil, fmt.Errorf("target log-prob: %d targets for %d rows", len(st.targets), N)
	}
	if len(st.lse) != N {
		st.lse = make([]float64, N)
	}
	switch x := in[0].Data().(type) {
	case []float32:
		headForward(st, x, prealloc.Data().([]float32))
	case []float64:
		headForward(st, x, prealloc.Data().([]float64))
	default:
		return nil, fmt.Errorf("target log-prob: unsupported data %T", x)
	}
	return prealloc, nil
}

func headForward[T float](st *headRun, logits, out []T) {
	V := len(logits) / len(out)
	parallel(len(out), func(n int) {
		row := logits[n*V : (n+1)*V]
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, float64(v)*st.invTemp)
		}
		var sum float64
		for _, v := range row {
			sum += qwen3.ExpNeg(float64(v)*st.invTemp - m)
		}
		st.lse[n] = m + math.Log(sum)
		out[n] = T(float64(row[st.targets[n]])*st.invTemp - st.lse[n])
	})
}

// SymDiff returns the logits' gradient.
func (op targetLogProb) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	n, err := G.ApplyOp(targetLogProbGrad(op), in[0], grad)
	if err != nil {
		return nil, fmt.Errorf("differentiating target log-prob: %w", err)
	}
	return G.Nodes{n}, nil
}

// targetLogProbGrad maps (logits, dLogP) to dLogits.
type targetLogProbGrad targetLogProb

func (op targetLogProbGrad) Arity() int { return 2 }
func (op targetLogProbGrad) Type() hm.Type {
	t := tensor2()
	return hm.NewFnType(t, t, t)
}
func (op targetLogProbGrad) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op targetLogProbGrad) ReturnsPtr() bool      { return false }
func (op targetLogProbGrad) CallsExtern() bool     { return false }
func (op targetLogProbGrad) OverwritesInput() int  { return -1 }
func (op targetLogProbGrad) WriteHash(h hash.Hash) { fmt.Fprintf(h, "TargetLogProbGrad{%p}", op.st) }
func (op targetLogProbGrad) Hashcode() uint32      { return hashOf(op) }
func (op targetLogProbGrad) String() string        { return "TargetLogProbGrad" }

func (op targetLogProbGrad) Do(in ...G.Value) (G.Value, error) {
	out := tensor.New(tensor.WithShape(in[0].Shape().Clone()...), tensor.Of(in[0].Dtype()))
	return op.UsePreallocDo(out, in...)
}

// UsePreallocDo writes dLogits = g·invTemp·(onehot(target) − softmax).
func (op targetLogProbGrad) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	switch x := in[0].Data().(type) {
	case []float32:
		headBackward(op.st, x, in[1].Data().([]float32), prealloc.Data().([]float32))
	case []float64:
		headBackward(op.st, x, in[1].Data().([]float64), prealloc.Data().([]float64))
	default:
		return nil, fmt.Errorf("target log-prob gradient: unsupported data %T", x)
	}
	return prealloc, nil
}

func headBackward[T float](st *headRun, logits, g, out []T) {
	V := len(logits) / len(g)
	parallel(len(g), func(n int) {
		row, dst := logits[n*V:(n+1)*V], out[n*V:(n+1)*V]
		gn := float64(g[n]) * st.invTemp
		if gn == 0 {
			clear(dst)
			return
		}
		for v, x := range row {
			dst[v] = T(-gn * qwen3.ExpNeg(float64(x)*st.invTemp-st.lse[n]))
		}
		dst[st.targets[n]] += T(gn)
	})
}
