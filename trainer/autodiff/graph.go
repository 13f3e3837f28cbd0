//go:build !cuda

package autodiff

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graphKey identifies a compiled graph: its batch shape and whether it
// carries the backward pass.
type graphKey struct {
	B, T int
	grad bool
}

// graph is one compiled forward (and optionally backward) pass.
type graph struct {
	key graphKey
	g   *G.ExprGraph
	vm  G.VM

	ids                 *G.Node // inputs
	attn                *attnRun
	head                *headRun
	loraScale           *G.Node
	dropMasks           map[string]*G.Node
	seedLogP, seedScore *G.Node
	scoreSeed           *scoreSeedRun

	logits, logp, score *G.Node // outputs
	trainNodes          []*G.Node
	trainParams         []*Param
}

// build constructs the Qwen3 forward for a [B, T] batch (docs/design/qwen3.md, "Forward").
// Rows are flattened to N = B·T; attention runs per (batch, kv head) with
// the g = H/K query heads of a group stacked, which is GQA without copying
// kv heads.
func (m *Model) build(key graphKey) (*graph, error) {
	d := m.dims
	B, T := key.B, key.T
	N := B * T
	if N < 2 {
		return nil, fmt.Errorf("building graph: batch of %d tokens, need at least 2", N)
	}
	dt := tensor.Float32
	if m.Options.Float64 {
		dt = tensor.Float64
	}
	g := G.NewGraph()
	b := &builder{g: g, dt: dt, f64: m.Options.Float64, d: d, params: map[string]*G.Node{}, lora: m.Options.LoRA}
	gr := &graph{key: key, g: g}
	for _, p := range m.Params.List {
		n := G.NewTensor(g, dt, len(p.Shape), G.WithShape(p.Shape...), G.WithName(p.Name), G.WithValue(p.dense))
		b.params[p.Name] = n
		if key.grad && p.Trainable {
			gr.trainNodes = append(gr.trainNodes, n)
			gr.trainParams = append(gr.trainParams, p)
		}
	}
	gr.ids = G.NewVector(g, tensor.Int, G.WithShape(N), G.WithName("ids"))
	grp := d.H / d.K
	gr.attn = &attnRun{}
	gr.loraScale = G.NewScalar(g, dt, G.WithName("lora_scale"))
	b.loraScale = gr.loraScale
	if m.Options.LoRA != nil && m.Options.LoRA.Dropout > 0 {
		b.dropMasks = map[string]*G.Node{}
		for i := 0; i < d.L; i++ {
			for _, proj := range m.Options.LoRA.TargetList() {
				in, _ := d.projShape(proj)
				mod := modulePath(i, proj)
				b.dropMasks[mod] = G.NewMatrix(g, dt, G.WithShape(N, in), G.WithName("drop."+mod))
			}
		}
		gr.dropMasks = b.dropMasks
	}

	eps := b.scalar(d.Eps, "eps")
	negHalf := b.scalar(-0.5, "neg_half")
	cosQ, sinQ, rot := ropeTables(d, B, T, d.H)
	cosK, sinK, _ := ropeTables(d, B, T, d.K)
	cq := b.constant(cosQ, "cos_q", N*d.H, d.Hd)
	sq := b.constant(sinQ, "sin_q", N*d.H, d.Hd)
	ck := b.constant(cosK, "cos_k", N*d.K, d.Hd)
	sk := b.constant(sinK, "sin_k", N*d.K, d.Hd)
	rt := b.constant(rot, "rot", d.Hd, d.Hd)
	qScale := b.scalar(1/math.Sqrt(float64(d.Hd)), "q_scale")

	h := b.must(G.ByIndices(b.params["model.embed_tokens.weight"], gr.ids, 0)) // [N, D]
	for i := 0; i < d.L; i++ {
		pre := fmt.Sprintf("model.layers.%d.", i)
		x := b.rmsNorm(h, pre+"input_layernorm.weight", eps, negHalf)
		q := b.linear(x, modulePath(i, "q_proj"))
		k := b.linear(x, modulePath(i, "k_proj"))
		v := b.linear(x, modulePath(i, "v_proj"))
		if b.err != nil {
			return nil, fmt.Errorf("building graph: %w", b.err)
		}
		q = b.rmsNorm(b.must(G.Reshape(q, tensor.Shape{N * d.H, d.Hd})), pre+"self_attn.q_norm.weight", eps, negHalf)
		k = b.rmsNorm(b.must(G.Reshape(k, tensor.Shape{N * d.K, d.Hd})), pre+"self_attn.k_norm.weight", eps, negHalf)
		q = b.must(G.HadamardProd(b.rope(q, cq, sq, rt), qScale))
		k = b.rope(k, ck, sk, rt)
		// [B,T,H,d] → [B,H,T,d] → [B·K, g·T, d]: the g query heads of a kv group are contiguous.
		q3 := b.must(G.Reshape(b.must(G.Transpose(b.must(G.Reshape(q, tensor.Shape{B, T, d.H, d.Hd})), 0, 2, 1, 3)), tensor.Shape{B * d.K, grp * T, d.Hd}))
		k3 := b.must(G.Reshape(b.must(G.Transpose(b.must(G.Reshape(k, tensor.Shape{B, T, d.K, d.Hd})), 0, 2, 1, 3)), tensor.Shape{B * d.K, T, d.Hd}))
		v3 := b.must(G.Reshape(b.must(G.Transpose(b.must(G.Reshape(v, tensor.Shape{B, T, d.K, d.Hd})), 0, 2, 1, 3)), tensor.Shape{B * d.K, T, d.Hd}))
		if b.err != nil {
			return nil, fmt.Errorf("building graph: %w", b.err)
		}
		o := b.must(attend(q3, k3, v3, attnShape{BK: B * d.K, K: d.K, g: grp, T: T, d: d.Hd}, gr.attn)) // [B·K, g·T, d]
		o = b.must(G.Reshape(b.must(G.Transpose(b.must(G.Reshape(o, tensor.Shape{B, d.H, T, d.Hd})), 0, 2, 1, 3)), tensor.Shape{N, d.H * d.Hd}))
		h = b.must(G.Add(h, b.linear(o, modulePath(i, "o_proj"))))

		x = b.rmsNorm(h, pre+"post_attention_layernorm.weight", eps, negHalf)
		gt := b.linear(x, modulePath(i, "gate_proj"))
		up := b.linear(x, modulePath(i, "up_proj"))
		if b.err != nil {
			return nil, fmt.Errorf("building graph: %w", b.err)
		}
		act := b.must(G.HadamardProd(b.must(G.HadamardProd(gt, b.must(G.Sigmoid(gt)))), up))
		h = b.must(G.Add(h, b.linear(act, modulePath(i, "down_proj"))))
	}
	h = b.rmsNorm(h, "model.norm.weight", eps, negHalf)
	if b.err != nil {
		return nil, fmt.Errorf("building graph: %w", b.err)
	}

	var terms []*G.Node
	if lm, ok := b.params["lm_head.weight"]; !m.Options.ScoreHead && (ok || m.Config.TieWordEmbeddings) {
		if !ok {
			lm = b.must(G.Transpose(b.params["model.embed_tokens.weight"]))
		}
		gr.logits = b.must(G.Mul(h, lm)) // [N, V], before temperature
		if b.err != nil {
			return nil, fmt.Errorf("building graph: %w", b.err)
		}
		// One fused op for log softmax(logits/temperature)[target]: the
		// [N, V] tensors of a real vocabulary are the largest of a pass.
		gr.head = &headRun{}
		gr.logp = b.must(targetLogProbs(gr.logits, gr.head)) // [N, 1]
		if key.grad {
			gr.seedLogP = G.NewMatrix(g, dt, G.WithShape(N, 1), G.WithName("seed_logp"))
			terms = append(terms, b.must(G.Sum(b.must(G.HadamardProd(gr.logp, gr.seedLogP)))))
		}
	}
	if sw, ok := b.params["score.weight"]; ok {
		gr.score = b.must(G.Mul(h, sw)) // [N]
		if key.grad {
			gr.scoreSeed = &scoreSeedRun{B: B, T: T}
			gr.seedScore = b.must(G.ApplyOp(scoreSeed{st: gr.scoreSeed}, gr.score))
			terms = append(terms, b.must(G.Sum(b.must(G.HadamardProd(gr.score, gr.seedScore)))))
		}
	}
	if b.err != nil {
		return nil, fmt.Errorf("building graph: %w", b.err)
	}
	if gr.logp == nil && gr.score == nil {
		return nil, fmt.Errorf("building graph: model has neither an LM head nor a score head")
	}
	if key.grad {
		if len(gr.trainNodes) == 0 {
			return nil, fmt.Errorf("building graph: no trainable parameters")
		}
		surrogate := terms[0]
		if len(terms) == 2 {
			surrogate = b.must(G.Add(terms[0], terms[1]))
		}
		if b.err != nil {
			return nil, fmt.Errorf("building graph: %w", b.err)
		}
		if _, err := G.Grad(surrogate, gr.trainNodes...); err != nil {
			return nil, fmt.Errorf("building graph: differentiating: %w", err)
		}
		gr.vm = G.NewTapeMachine(g, G.BindDualValues(gr.trainNodes...))
	} else {
		gr.vm = G.NewTapeMachine(g)
	}
	return gr, nil
}
