//go:build !cuda

package autodiff

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"mascot.dev/mascot/trainer/qwen3"
)

// builder carries what the layer helpers need while one graph is built.
type builder struct {
	g      *G.ExprGraph
	dt     tensor.Dtype
	f64    bool
	d      dims
	params map[string]*G.Node
	lora   *LoRAConfig
	// loraScale is the scalar input scaling·(adapter enabled ? 1 : 0).
	loraScale *G.Node
	// dropMasks are the per-module dropout mask inputs (nil without dropout).
	dropMasks map[string]*G.Node
	err       error
}

// value wraps a float64 slice as a dense tensor of the builder's dtype.
func (b *builder) value(data []float64, shape ...int) *tensor.Dense {
	if b.f64 {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
	}
	f := make([]float32, len(data))
	for i, v := range data {
		f[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
}

// scalar is a constant scalar node.
func (b *builder) scalar(v float64, name string) *G.Node {
	var val any = float32(v)
	if b.f64 {
		val = v
	}
	return G.NewScalar(b.g, b.dt, G.WithName(name), G.WithValue(val))
}

// constant is a constant tensor node holding data.
func (b *builder) constant(data []float64, name string, shape ...int) *G.Node {
	return G.NewTensor(b.g, b.dt, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(b.value(data, shape...)))
}

// must records the first error and passes the node through.
func (b *builder) must(n *G.Node, err error) *G.Node {
	if err != nil && b.err == nil {
		b.err = err
	}
	return n
}

// rmsNorm normalises the rows of x [M, n] and multiplies by weight [n]:
// y = x / sqrt(mean(x²) + eps) · w. Pow(·, -0.5) is used because
// InverseSqrt's gradient is wrong in gorgonia v0.9.18.
func (b *builder) rmsNorm(x *G.Node, weight string, eps, negHalf *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	ms := b.must(G.Mean(b.must(G.Square(x)), 1))
	inv := b.must(G.Pow(b.must(G.Add(ms, eps)), negHalf))
	xn := b.must(G.BroadcastHadamardProd(x, inv, nil, []byte{1}))
	return b.must(G.BroadcastHadamardProd(xn, b.params[weight], nil, []byte{0}))
}

// linear computes x·Wᵀ (W stored [in,out]) plus the LoRA branch when the
// projection is adapted: scaling·((x⊙dropout)·Aᵀ)·Bᵀ.
func (b *builder) linear(x *G.Node, module string) *G.Node {
	if b.err != nil {
		return nil
	}
	w, ok := b.params[module+".weight"]
	if !ok {
		b.err = fmt.Errorf("building graph: no weight for %s", module)
		return nil
	}
	y := b.must(G.Mul(x, w))
	a, okA := b.params[LoRAKeyA(module)]
	bb, okB := b.params[LoRAKeyB(module)]
	if !okA || !okB {
		return y
	}
	in := x
	if m := b.dropMasks[module]; m != nil {
		in = b.must(G.HadamardProd(x, m))
	}
	l := b.must(G.Mul(b.must(G.Mul(in, a)), bb))
	l = b.must(G.HadamardProd(l, b.loraScale))
	return b.must(G.Add(y, l))
}

// ropeTables returns cos and sin for rows ordered (batch, position, head)
// and the rotate_half permutation matrix R (x·R = rotate_half(x)).
func ropeTables(d dims, B, T, heads int) (cos, sin, rot []float64) {
	half := d.Hd / 2
	inv := qwen3.RopeInvFreq(d.Theta, d.Hd) // float32, as transformers (docs/design/qwen3.md)
	rows := B * T * heads
	cos = make([]float64, rows*d.Hd)
	sin = make([]float64, rows*d.Hd)
	for r := 0; r < rows; r++ {
		t := (r / heads) % T
		for i := 0; i < d.Hd; i++ {
			c, s := qwen3.RopeCosSin(qwen3.RopeAngle(inv, t, i%half))
			cos[r*d.Hd+i], sin[r*d.Hd+i] = float64(c), float64(s)
		}
	}
	rot = make([]float64, d.Hd*d.Hd)
	for i := 0; i < half; i++ {
		rot[(i+half)*d.Hd+i] = -1 // out[i] = -x[i+half]
		rot[i*d.Hd+i+half] = 1    // out[i+half] = x[i]
	}
	return cos, sin, rot
}

// rope applies rotate-half RoPE to x [rows, d].
func (b *builder) rope(x, cos, sin, rot *G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	r := b.must(G.Mul(x, rot))
	return b.must(G.Add(b.must(G.HadamardProd(x, cos)), b.must(G.HadamardProd(r, sin))))
}
