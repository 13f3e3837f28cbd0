package net

import (
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// TrainParams lists the trainable parameters in model order, their values
// and gradients on the backend (the optimizer updates them in place).
func (m *Model) TrainParams() []pass.Param {
	var out []pass.Param
	for _, p := range m.params {
		if p.trainable {
			out = append(out, pass.Param{Name: p.name, Decay: p.decay, Value: p.v, Grad: p.g})
		}
	}
	return out
}

// host downloads a parameter in Hugging Face layout as float32.
func (m *Model) host(p *param) *qwen3.Tensor {
	t := &qwen3.Tensor{Shape: append([]int(nil), p.shape...), Data: make([]float32, p.v.Len())}
	m.be.Download(t.Data, p.v)
	return t
}

// Weights returns the base weights (every non-LoRA parameter, the score
// head included) in Hugging Face layout as float32; a tied lm_head is
// omitted.
func (m *Model) Weights() qwen3.Weights {
	m.bufs.freeAll() // as MergedWeights
	w := qwen3.Weights{}
	for _, p := range m.params {
		if !isAdapter(p.name) {
			w[p.name] = m.host(p)
		}
	}
	return w
}

// LoRAWeights returns the adapters with PEFT keys and shapes (A [r,in],
// B [out,r]), ready for adapter_model.safetensors.
func (m *Model) LoRAWeights() qwen3.Weights {
	w := qwen3.Weights{}
	for _, p := range m.params {
		if isAdapter(p.name) {
			w[p.name] = m.host(p)
		}
	}
	return w
}

// MergedWeights returns the base weights with every adapter folded in,
// W' = W + scaling·B·A (docs/design/peft.md), in Hugging Face layout. The
// product runs on the backend, one projection at a time.
func (m *Model) MergedWeights() qwen3.Weights {
	// The float32 copy is the size of the model: hand back the scratch
	// first (later passes grow it again).
	m.bufs.freeAll()
	w := m.Weights()
	if m.Options.LoRA == nil {
		return w
	}
	r := m.Options.LoRA.R
	for i := range m.layers {
		l := &m.layers[i]
		for p := qwen3.Proj(0); p < qwen3.NumProj; p++ {
			if l.a[p] == nil {
				continue
			}
			out, in := m.d.shape(p)
			t := w[l.w[p].name]
			tmp := m.bufs.f32("merge", out*in)
			m.be.Upload(tmp, t.Data)
			m.be.Gemm(false, false, out, in, r, m.scale, l.b[p].v, r, l.a[p].v, in, 1, tmp, in)
			m.be.Download(t.Data, tmp)
		}
	}
	m.bufs.drop("merge")
	return w
}

// BufferBytes is the memory the model's scratch buffers hold.
func (m *Model) BufferBytes() int64 { return m.bufs.bytes() }

// ParamBytes is the memory of the trainable values and their gradients.
func (m *Model) ParamBytes() int64 {
	var n int64
	for _, p := range m.params {
		if p.trainable {
			n += 2 * int64(p.v.Len()) * int64(compute.F32.Size())
		}
	}
	return n
}
