package net

import (
	"encoding/binary"
	"fmt"
	"io"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

// Source yields a model's base weights by Hugging Face key.
type Source interface {
	// fill gives every parameter of want that the source holds its value
	// on m's backend; keys it does not hold stay without one.
	fill(m *Model, want map[string]*param) error
}

// Aliaser is implemented by backends whose F32 tensors can share host
// memory (the CPU backend): frozen float32 weights then alias the
// caller's slices instead of being copied, so a GRPO run whose sampler
// reads qwen3.Model holds the base once.
type Aliaser interface {
	// AliasF32 returns an F32 tensor whose elements are data's.
	AliasF32(data []float32) compute.Tensor
}

// FromWeights is a Source of float32 tensors in memory (a qwen3.Model's
// Weights).
func FromWeights(w qwen3.Weights) Source { return weightsSource(w) }

type weightsSource qwen3.Weights

func (s weightsSource) fill(m *Model, want map[string]*param) error {
	al, canAlias := m.be.(Aliaser)
	for name, p := range want {
		t, ok := s[name]
		if !ok {
			continue
		}
		if !sameShape(t.Shape, p.shape) || len(t.Data) != numel(p.shape) {
			return fmt.Errorf("weight %s has shape %v (%d values), want %v", name, t.Shape, len(t.Data), p.shape)
		}
		dt := m.dtypeFor(p, compute.F32)
		if dt == compute.F32 && !p.trainable && canAlias {
			p.v, p.aliased = al.AliasF32(t.Data), true
			continue
		}
		p.v = m.be.Alloc(dt, len(t.Data))
		m.be.Upload(p.v, t.Data)
	}
	return nil
}

// FromDir is a Source reading a checkpoint directory's safetensors in
// chunks of loadChunk elements (safetensors.EachTensor): BF16 tensors go
// to the backend as bfloat16 bits, and neither a float32 copy of the model
// nor a whole tensor's bytes is ever held; tensors the model does not use
// are not read.
func FromDir(dir string) Source { return dirSource(dir) }

type dirSource string

// loadChunk is how many elements a load converts at once.
const loadChunk = 1 << 20

func (s dirSource) fill(m *Model, want map[string]*param) error {
	f32 := make([]float32, loadChunk)
	u16 := make([]uint16, loadChunk)
	var raw []byte
	err := safetensors.EachTensor(string(s), func(ti safetensors.TensorInfo, r *io.SectionReader) error {
		p, ok := want[ti.Name]
		if !ok {
			return nil // not read at all (an untied lm_head under a score head)
		}
		if !sameShape(ti.Shape, p.shape) {
			return fmt.Errorf("weight %s has shape %v, want %v", ti.Name, ti.Shape, p.shape)
		}
		stored := compute.F32
		if ti.DType == safetensors.BF16 {
			stored = compute.BF16
		}
		dt := m.dtypeFor(p, stored)
		n := numel(p.shape)
		p.v = m.be.Alloc(dt, n)
		size := ti.DType.Bits() / 8
		if cap(raw) < loadChunk*size {
			raw = make([]byte, loadChunk*size)
		}
		for lo := 0; lo < n; lo += loadChunk {
			hi := min(lo+loadChunk, n)
			b := raw[:(hi-lo)*size]
			if _, err := r.ReadAt(b, int64(lo*size)); err != nil {
				return fmt.Errorf("loading weight %s: %w", ti.Name, err)
			}
			dst := m.be.Slice(p.v, lo, hi-lo)
			if ti.DType == safetensors.BF16 && dt == compute.BF16 {
				h := u16[:hi-lo]
				for i := range h {
					h[i] = binary.LittleEndian.Uint16(b[2*i:])
				}
				m.be.Upload(dst, h)
				continue
			}
			x := f32[:hi-lo]
			if err := safetensors.Decode(ti.DType, b, x); err != nil {
				return fmt.Errorf("loading weight %s: %w", ti.Name, err)
			}
			m.be.Upload(dst, x)
		}
		return m.be.Sync()
	})
	if err != nil {
		return fmt.Errorf("loading %s: %w", string(s), err)
	}
	return nil
}
