//go:build !cuda

package autodiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"mascot.dev/mascot/trainer/qwen3"
)

// tinyConfig is a GQA config with head_dim ≠ hidden/heads, like Qwen3-0.6B.
func tinyConfig(tied bool) qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", VocabSize: 23, HiddenSize: 12, IntermediateSize: 20,
		NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 6,
		RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: tied}
}

// randomWeights draws every tensor of cfg (norm weights around 1).
func randomWeights(cfg qwen3.Config, seed uint64) qwen3.Weights {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := qwen3.Weights{}
	mk := func(name string, scale, center float64, shape ...int) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		t := &qwen3.Tensor{Shape: shape, Data: make([]float32, n)}
		for i := range t.Data {
			t.Data[i] = float32(center + scale*rng.NormFloat64())
		}
		w[name] = t
	}
	D, I, H, K, d, V := cfg.HiddenSize, cfg.IntermediateSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim, cfg.VocabSize
	mk("model.embed_tokens.weight", 0.5, 0, V, D)
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		p := fmt.Sprintf("model.layers.%d.", i)
		mk(p+"input_layernorm.weight", 0.1, 1, D)
		mk(p+"post_attention_layernorm.weight", 0.1, 1, D)
		mk(p+"self_attn.q_norm.weight", 0.1, 1, d)
		mk(p+"self_attn.k_norm.weight", 0.1, 1, d)
		mk(p+"self_attn.q_proj.weight", 0.3, 0, H*d, D)
		mk(p+"self_attn.k_proj.weight", 0.3, 0, K*d, D)
		mk(p+"self_attn.v_proj.weight", 0.3, 0, K*d, D)
		mk(p+"self_attn.o_proj.weight", 0.3, 0, D, H*d)
		mk(p+"mlp.gate_proj.weight", 0.3, 0, I, D)
		mk(p+"mlp.up_proj.weight", 0.3, 0, I, D)
		mk(p+"mlp.down_proj.weight", 0.3, 0, D, I)
	}
	mk("model.norm.weight", 0.1, 1, D)
	if !cfg.TieWordEmbeddings {
		mk("lm_head.weight", 0.3, 0, V, D)
	}
	return w
}

// refForward is a plain float64 Qwen3 forward over one unpadded sequence,
// written straight from docs/design/qwen3.md ("Forward"), returning logits [T][V] and the
// final hidden states [T][D].
func refForward(cfg qwen3.Config, w qwen3.Weights, ids []int) (logits, hidden [][]float64) {
	D, I, H, K, d, V := cfg.HiddenSize, cfg.IntermediateSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim, cfg.VocabSize
	T := len(ids)
	get := func(n string) []float32 { return w[n].Data }
	matvec := func(W []float32, out, in int, x []float64) []float64 {
		y := make([]float64, out)
		for o := 0; o < out; o++ {
			for j := 0; j < in; j++ {
				y[o] += float64(W[o*in+j]) * x[j]
			}
		}
		return y
	}
	rms := func(x []float64, wt []float32) []float64 {
		var ms float64
		for _, v := range x {
			ms += v * v
		}
		inv := 1 / math.Sqrt(ms/float64(len(x))+cfg.RMSNormEps)
		y := make([]float64, len(x))
		for i := range x {
			y[i] = x[i] * inv * float64(wt[i])
		}
		return y
	}
	rope := func(x []float64, pos int) []float64 {
		y := make([]float64, d)
		for i := 0; i < d/2; i++ {
			f := float64(pos) / math.Pow(cfg.RopeTheta, float64(2*i)/float64(d))
			c, s := math.Cos(f), math.Sin(f)
			y[i] = x[i]*c - x[i+d/2]*s
			y[i+d/2] = x[i+d/2]*c + x[i]*s
		}
		return y
	}
	h := make([][]float64, T)
	for t, id := range ids {
		h[t] = make([]float64, D)
		for j := range h[t] {
			h[t][j] = float64(get("model.embed_tokens.weight")[id*D+j])
		}
	}
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		q := make([][][]float64, T)
		k := make([][][]float64, T)
		v := make([][][]float64, T)
		for t := range h {
			x := rms(h[t], get(p+"input_layernorm.weight"))
			qa := matvec(get(p+"self_attn.q_proj.weight"), H*d, D, x)
			ka := matvec(get(p+"self_attn.k_proj.weight"), K*d, D, x)
			va := matvec(get(p+"self_attn.v_proj.weight"), K*d, D, x)
			for hh := 0; hh < H; hh++ {
				q[t] = append(q[t], rope(rms(qa[hh*d:(hh+1)*d], get(p+"self_attn.q_norm.weight")), t))
			}
			for kk := 0; kk < K; kk++ {
				k[t] = append(k[t], rope(rms(ka[kk*d:(kk+1)*d], get(p+"self_attn.k_norm.weight")), t))
				v[t] = append(v[t], va[kk*d:(kk+1)*d])
			}
		}
		for t := range h {
			o := make([]float64, H*d)
			for hh := 0; hh < H; hh++ {
				kv := hh / (H / K)
				sc := make([]float64, t+1)
				mx := math.Inf(-1)
				for s := 0; s <= t; s++ {
					for i := 0; i < d; i++ {
						sc[s] += q[t][hh][i] * k[s][kv][i]
					}
					sc[s] /= math.Sqrt(float64(d))
					mx = math.Max(mx, sc[s])
				}
				var z float64
				for s := range sc {
					sc[s] = math.Exp(sc[s] - mx)
					z += sc[s]
				}
				for s := range sc {
					for i := 0; i < d; i++ {
						o[hh*d+i] += sc[s] / z * v[s][kv][i]
					}
				}
			}
			ao := matvec(get(p+"self_attn.o_proj.weight"), D, H*d, o)
			for j := range ao {
				h[t][j] += ao[j]
			}
			x := rms(h[t], get(p+"post_attention_layernorm.weight"))
			g := matvec(get(p+"mlp.gate_proj.weight"), I, D, x)
			u := matvec(get(p+"mlp.up_proj.weight"), I, D, x)
			for j := range g {
				g[j] = g[j] / (1 + math.Exp(-g[j])) * u[j]
			}
			m := matvec(get(p+"mlp.down_proj.weight"), D, I, g)
			for j := range m {
				h[t][j] += m[j]
			}
		}
	}
	head := "lm_head.weight"
	if cfg.TieWordEmbeddings {
		head = "model.embed_tokens.weight"
	}
	for t := range h {
		hidden = append(hidden, rms(h[t], get("model.norm.weight")))
		logits = append(logits, matvec(get(head), V, D, hidden[t]))
	}
	return logits, hidden
}

// bg is the context of the tests' passes.
var bg = context.Background()
