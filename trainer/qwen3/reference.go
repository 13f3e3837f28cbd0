package qwen3

import (
	"fmt"
	"math"
)

// kvHead maps query head h to the kv head serving it: repeat_kv gives kv
// head j the contiguous query heads j·(H/K) .. (j+1)·(H/K)−1.
func kvHead(h, heads, kvHeads int) int { return h / (heads / kvHeads) }

// Hidden runs the reference forward pass (docs/design/qwen3.md, "Forward") over one token
// sequence at positions 0..T−1 and returns the final-normed hidden states
// [T, hidden]. It is written for clarity, step by step as
// modeling_qwen3.py, and is what the gorgonia graph and the KV-cache
// decoder are checked against. Active adapters are applied.
func (m *Model) Hidden(ids []int) (*Tensor, error) {
	if err := m.checkTokens(ids); err != nil {
		return nil, err
	}
	c := m.Config
	T, D, H, K, d := len(ids), c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim
	// 1. Embedding lookup, no scaling.
	h := make([]float32, T*D)
	for t, id := range ids {
		copy(h[t*D:(t+1)*D], m.embed.Data[id*D:(id+1)*D])
	}
	// 2. RoPE tables for positions 0..T−1.
	inv := RopeInvFreq(c.RopeTheta, d)
	cos, sin := make([]float32, T*d), make([]float32, T*d)
	for t := 0; t < T; t++ {
		ropeAt(inv, t, cos[t*d:(t+1)*d], sin[t*d:(t+1)*d])
	}
	scaling := float32(math.Pow(float64(d), -0.5))
	x := make([]float32, T*D)
	q, k, v := make([]float32, T*H*d), make([]float32, T*K*d), make([]float32, T*K*d)
	o, attnOut := make([]float32, T*H*d), make([]float32, T*D)
	gate, up := make([]float32, T*c.IntermediateSize), make([]float32, T*c.IntermediateSize)
	scores := make([]float32, T)
	all := []span{{view: m, lo: 0, hi: T}}
	// 3. Decoder layers.
	for li := range m.layers {
		l := &m.layers[li]
		rmsNorm(h, l.inNorm, c.RMSNormEps, x)
		m.project(li, QProj, x, T, q, all)
		m.project(li, KProj, x, T, k, all)
		m.project(li, VProj, x, T, v, all)
		// Per-head q_norm / k_norm over head_dim, then rotate-half RoPE.
		rmsNorm(q, l.qNorm, c.RMSNormEps, q)
		rmsNorm(k, l.kNorm, c.RMSNormEps, k)
		for t := 0; t < T; t++ {
			cs, sn := cos[t*d:(t+1)*d], sin[t*d:(t+1)*d]
			for hh := 0; hh < H; hh++ {
				rotateHalf(q[(t*H+hh)*d:(t*H+hh+1)*d], cs, sn)
			}
			for j := 0; j < K; j++ {
				rotateHalf(k[(t*K+j)*d:(t*K+j+1)*d], cs, sn)
			}
		}
		// Causal softmax attention with GQA and head_dim^-0.5 scaling.
		for hh := 0; hh < H; hh++ {
			j := kvHead(hh, H, K)
			for t := 0; t < T; t++ {
				qv := q[(t*H+hh)*d : (t*H+hh+1)*d]
				for s := 0; s <= t; s++ {
					kv := k[(s*K+j)*d : (s*K+j+1)*d]
					var dot float32
					for i := range qv {
						dot += qv[i] * kv[i]
					}
					scores[s] = dot * scaling
				}
				softmaxInPlace(scores[:t+1])
				ov := o[(t*H+hh)*d : (t*H+hh+1)*d]
				clear(ov)
				for s := 0; s <= t; s++ {
					vv := v[(s*K+j)*d : (s*K+j+1)*d]
					for i := range ov {
						ov[i] += scores[s] * vv[i]
					}
				}
			}
		}
		m.project(li, OProj, o, T, attnOut, all)
		for i := range h {
			h[i] += attnOut[i]
		}
		// SwiGLU MLP.
		rmsNorm(h, l.postNorm, c.RMSNormEps, x)
		m.project(li, GateProj, x, T, gate, all)
		m.project(li, UpProj, x, T, up, all)
		for i := range gate {
			gate[i] = silu(gate[i]) * up[i]
		}
		m.project(li, DownProj, gate, T, attnOut, all)
		for i := range h {
			h[i] += attnOut[i]
		}
	}
	// 4. Final norm.
	rmsNorm(h, m.norm.Data, c.RMSNormEps, h)
	return &Tensor{Shape: []int{T, D}, Data: h}, nil
}

// Forward returns the reference logits [T, vocab] of a causal-LM model.
func (m *Model) Forward(ids []int) (*Tensor, error) {
	if m.head == nil {
		return nil, fmt.Errorf("running model: a sequence-classification model has no lm_head")
	}
	h, err := m.Hidden(ids)
	if err != nil {
		return nil, err
	}
	T, D, V := len(ids), m.Config.HiddenSize, m.Config.VocabSize
	logits := make([]float32, T*V)
	matmulT(h.Data, T, D, m.head.Data, V, logits, false)
	return &Tensor{Shape: []int{T, V}, Data: logits}, nil
}
