//go:build !cuda

package autodiff

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"runtime"
	"sync"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"mascot.dev/mascot/trainer/qwen3"
)

// attnRun is what every attention op of one compiled graph reads about the
// current pass: the real length of each batch row (keys at or past it are
// padding) and a pass counter, so cached backward results are never reused
// across passes. Model.run sets both before each RunAll.
type attnRun struct {
	lens []int
	pass uint64
}

// attnShape is the layout of one attention call: B·K groups, each with g
// query heads of T positions stacked ([B·K, g·T, d] queries, [B·K, T, d]
// keys and values).
type attnShape struct {
	BK, K, g, T, d int
}

// attnState is shared by one attention op and its three gradient ops: the
// log-sum-exp of every query row (saved by the forward) and the gradients
// of q, k and v (computed once per pass by whichever gradient op runs first).
type attnState struct {
	sh      attnShape
	run     *attnRun
	lse     []float64
	lsePass uint64
	grads   [3]any // []float32 or []float64, shaped like q, k, v
	grdPass uint64
	mu      sync.Mutex
}

// causalAttention is a fused, memory-efficient causal attention op:
// softmax(q·kᵀ + mask)·v, where query position t sees keys s ≤ t that are
// not padding. It never materialises the [g·T, T] score matrix: the forward
// keeps only one log-sum-exp per query row and the backward recomputes the
// probabilities row by row, so memory grows with T, not T².
type causalAttention struct{ st *attnState }

// attend applies causal attention to q3 [B·K, g·T, d], k3 and v3 [B·K, T, d].
func attend(q3, k3, v3 *G.Node, sh attnShape, run *attnRun) (*G.Node, error) {
	return G.ApplyOp(causalAttention{st: &attnState{sh: sh, run: run}}, q3, k3, v3)
}

func tensor3() G.TensorType { return G.TensorType{Dims: 3, Of: hm.TypeVariable('a')} }

func (op causalAttention) Arity() int { return 3 }
func (op causalAttention) Type() hm.Type {
	t := tensor3()
	return hm.NewFnType(t, t, t, t)
}
func (op causalAttention) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op causalAttention) ReturnsPtr() bool     { return false }
func (op causalAttention) CallsExtern() bool    { return false }
func (op causalAttention) OverwritesInput() int { return -1 }
func (op causalAttention) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "CausalAttention{%p}", op.st)
}
func (op causalAttention) Hashcode() uint32 { return hashOf(op) }
func (op causalAttention) String() string   { return "CausalAttention" }

func hashOf(op G.Op) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op causalAttention) Do(in ...G.Value) (G.Value, error) {
	out := tensor.New(tensor.WithShape(in[0].Shape().Clone()...), tensor.Of(in[0].Dtype()))
	return op.UsePreallocDo(out, in...)
}

// UsePreallocDo writes the attention output into prealloc.
func (op causalAttention) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	st := op.st
	if err := st.check(in[:3]); err != nil {
		return nil, err
	}
	if len(st.lse) != st.sh.BK*st.sh.g*st.sh.T {
		st.lse = make([]float64, st.sh.BK*st.sh.g*st.sh.T)
	}
	switch q := in[0].Data().(type) {
	case []float32:
		attnForward(st, q, in[1].Data().([]float32), in[2].Data().([]float32), prealloc.Data().([]float32))
	case []float64:
		attnForward(st, q, in[1].Data().([]float64), in[2].Data().([]float64), prealloc.Data().([]float64))
	default:
		return nil, fmt.Errorf("causal attention: unsupported data %T", q)
	}
	st.lsePass = st.run.pass
	return prealloc, nil
}

func (st *attnState) check(in []G.Value) error {
	sh := st.sh
	if len(st.run.lens) != sh.BK/sh.K {
		return fmt.Errorf("causal attention: %d row lengths for %d rows", len(st.run.lens), sh.BK/sh.K)
	}
	want := []int{sh.BK * sh.g * sh.T * sh.d, sh.BK * sh.T * sh.d, sh.BK * sh.T * sh.d}
	for i, v := range in {
		if v.Shape().TotalSize() != want[i] {
			return fmt.Errorf("causal attention: input %d has shape %v", i, v.Shape())
		}
	}
	return nil
}

func (op causalAttention) DiffWRT(int) []bool { return []bool{true, true, true} }

// SymDiff returns one gradient op per input; they share the state so the
// backward runs once per pass.
func (op causalAttention) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	out := make(G.Nodes, 3)
	for i := range out {
		n, err := G.ApplyOp(attnGrad{st: op.st, which: i}, in[0], in[1], in[2], grad)
		if err != nil {
			return nil, fmt.Errorf("differentiating causal attention: %w", err)
		}
		out[i] = n
	}
	return out, nil
}

// attnGrad returns the gradient of input which (0 q, 1 k, 2 v) of a
// causalAttention, given its inputs and the output's gradient.
type attnGrad struct {
	st    *attnState
	which int
}

func (op attnGrad) Arity() int { return 4 }
func (op attnGrad) Type() hm.Type {
	t := tensor3()
	return hm.NewFnType(t, t, t, t, t)
}
func (op attnGrad) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[op.which].(tensor.Shape).Clone(), nil
}
func (op attnGrad) ReturnsPtr() bool     { return false }
func (op attnGrad) CallsExtern() bool    { return false }
func (op attnGrad) OverwritesInput() int { return -1 }
func (op attnGrad) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "CausalAttentionGrad{%p,%d}", op.st, op.which)
}
func (op attnGrad) Hashcode() uint32 { return hashOf(op) }
func (op attnGrad) String() string   { return fmt.Sprintf("CausalAttentionGrad{%d}", op.which) }

func (op attnGrad) Do(in ...G.Value) (G.Value, error) {
	out := tensor.New(tensor.WithShape(in[op.which].Shape().Clone()...), tensor.Of(in[0].Dtype()))
	return op.UsePreallocDo(out, in...)
}

// UsePreallocDo copies this op's gradient into prealloc, running the
// backward first when this pass has not run it yet.
func (op attnGrad) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	st := op.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.grdPass != st.run.pass || st.grads[0] == nil {
		if st.lsePass != st.run.pass {
			return nil, fmt.Errorf("causal attention: backward before forward in pass %d", st.run.pass)
		}
		if err := st.check(in[:3]); err != nil {
			return nil, err
		}
		switch q := in[0].Data().(type) {
		case []float32:
			st.grads = attnBackward(st, q, in[1].Data().([]float32), in[2].Data().([]float32), in[3].Data().([]float32), st.grads)
		case []float64:
			st.grads = attnBackward(st, q, in[1].Data().([]float64), in[2].Data().([]float64), in[3].Data().([]float64), st.grads)
		default:
			return nil, fmt.Errorf("causal attention: unsupported data %T", q)
		}
		st.grdPass = st.run.pass
	}
	switch dst := prealloc.Data().(type) {
	case []float32:
		copy(dst, st.grads[op.which].([]float32))
	case []float64:
		copy(dst, st.grads[op.which].([]float64))
	}
	return prealloc, nil
}

type float interface{ ~float32 | ~float64 }

// parallel runs f(i) for i in [0, n) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	w := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for j := 0; j < w; j++ {
		wg.Add(1)
		go func(j int) {
			defer wg.Done()
			for i := j; i < n; i += w {
				f(i)
			}
		}(j)
	}
	wg.Wait()
}

// visible is the number of keys query position t of group bk attends to:
// keys 0..t. A padding position (t past the row's length) attends to key 0
// only: nothing real depends on it (later keys are padding too, and its
// outputs get no loss), so the padding costs one key per row, not T.
func (st *attnState) visible(bk, t int) int {
	if t >= st.run.lens[bk/st.sh.K] {
		return 1
	}
	return t + 1
}

func dot[T float](a, b []T) T {
	var s T
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// attnForward computes out and the per-row log-sum-exp; each group of
// B·K runs on its own goroutine.
func attnForward[T float](st *attnState, q, k, v, out []T) {
	sh := st.sh
	d, T_ := sh.d, sh.T
	parallel(sh.BK, func(bk int) {
		p := make([]float64, T_)
		acc := make([]float64, d)
		kb, vb := k[bk*T_*d:(bk+1)*T_*d], v[bk*T_*d:(bk+1)*T_*d]
		for qi := 0; qi < sh.g*T_; qi++ {
			row := bk*sh.g*T_ + qi
			qr := q[row*d : (row+1)*d]
			n := st.visible(bk, qi%T_)
			m := math.Inf(-1)
			for s := 0; s < n; s++ {
				p[s] = float64(dot(qr, kb[s*d:(s+1)*d]))
				m = max(m, p[s])
			}
			for s := 0; s < n; s++ {
				p[s] -= m
			}
			qwen3.ExpNegs(p[:n])
			var sum float64
			clear(acc)
			for s := 0; s < n; s++ {
				e := p[s]
				sum += e
				vr := vb[s*d : (s+1)*d]
				for i := range acc {
					acc[i] += e * float64(vr[i])
				}
			}
			o := out[row*d : (row+1)*d]
			for i := range o {
				o[i] = T(acc[i] / sum)
			}
			st.lse[row] = m + math.Log(sum)
		}
	})
}

// attnBackward returns dq, dk, dv (reusing the buffers of prev when they
// fit) from the output gradient dout, recomputing each row's
// probabilities from the saved log-sum-exp.
func attnBackward[T float](st *attnState, q, k, v, dout []T, prev [3]any) [3]any {
	sh := st.sh
	d, T_ := sh.d, sh.T
	buf := func(i, n int) []T {
		if b, ok := prev[i].([]T); ok && len(b) == n {
			clear(b)
			return b
		}
		return make([]T, n)
	}
	dq, dk, dv := buf(0, len(q)), buf(1, len(k)), buf(2, len(v))
	parallel(sh.BK, func(bk int) {
		p := make([]float64, T_)
		dp := make([]float64, T_)
		kb, vb := k[bk*T_*d:(bk+1)*T_*d], v[bk*T_*d:(bk+1)*T_*d]
		dkb, dvb := dk[bk*T_*d:(bk+1)*T_*d], dv[bk*T_*d:(bk+1)*T_*d]
		for qi := 0; qi < sh.g*T_; qi++ {
			row := bk*sh.g*T_ + qi
			qr, dor, dqr := q[row*d:(row+1)*d], dout[row*d:(row+1)*d], dq[row*d:(row+1)*d]
			n := st.visible(bk, qi%T_)
			lse := st.lse[row]
			for s := 0; s < n; s++ {
				p[s] = float64(dot(qr, kb[s*d:(s+1)*d])) - lse
			}
			qwen3.ExpNegs(p[:n])
			var D float64
			for s := 0; s < n; s++ {
				dp[s] = float64(dot(dor, vb[s*d:(s+1)*d]))
				D += p[s] * dp[s]
			}
			for s := 0; s < n; s++ {
				ds := T(p[s] * (dp[s] - D))
				ps := T(p[s])
				kr, dkr, dvr := kb[s*d:(s+1)*d], dkb[s*d:(s+1)*d], dvb[s*d:(s+1)*d]
				for i := 0; i < d; i++ {
					dqr[i] += ds * kr[i]
					dkr[i] += ds * qr[i]
					dvr[i] += ps * dor[i]
				}
			}
		}
	})
	return [3]any{dq, dk, dv}
}
