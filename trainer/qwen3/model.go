package qwen3

import (
	"fmt"
	"slices"
)

// Model is a Qwen3 checkpoint ready for the plain-Go forward passes. Its
// Config and Weights are the checkpoint's; the unexported fields are views
// resolved by New. A Model is read-only and safe for concurrent use.
type Model struct {
	Config  Config
	Weights Weights

	embed, norm, head, score *Tensor
	layers                   []layer
	adapters                 []Adapter
	// root is the model New built; its adapter views share its weights
	// (and may share one pass over them, see Extend).
	root *Model
	// streams says the weights are larger than the caches (streamBytes),
	// so a decoding step reads them from memory: one row's products then
	// take the kernel that prefetches into L2 (product).
	streams bool
}

// streamBytes is the weight bytes above which a model's decoding step
// reads its weights from memory rather than cache: twice the largest L3
// of the machines measured (32 MiB), so a model that fits a cache never
// takes the streaming kernel, which is a quarter slower there.
const streamBytes = 64 << 20

// Base is the model whose weights this view uses: the model New built,
// for it and for all its adapter views. Views of one base can share a
// pass (Extend).
func (m *Model) Base() *Model { return m.base() }

func (m *Model) base() *Model {
	if m.root == nil {
		return m
	}
	return m.root
}

type layer struct {
	inNorm, postNorm, qNorm, kNorm []float32
	proj                           [NumProj]*Tensor
	lora                           [NumProj][]delta
}

// New checks weights against cfg and returns the model. Every tensor of
// cfg.Shapes() must be present with its exact shape; lm_head.weight may be
// absent when the embeddings are tied (it is then the embedding matrix, and
// a present one is ignored, as vLLM does). Unknown extra keys are ignored.
func New(cfg Config, w Weights) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for key, shape := range cfg.Shapes() {
		t, ok := w[key]
		if !ok {
			return nil, fmt.Errorf("building model: weight %q is missing", key)
		}
		if !slices.Equal(t.Shape, shape) {
			return nil, fmt.Errorf("building model: weight %q has shape %v, config needs %v", key, t.Shape, shape)
		}
		if n := numel(shape); len(t.Data) != n {
			return nil, fmt.Errorf("building model: weight %q has %d values for shape %v", key, len(t.Data), shape)
		}
	}
	m := &Model{Config: cfg, Weights: w, embed: w[EmbedKey], norm: w[NormKey]}
	m.root = m
	m.streams = 4*cfg.NumParams() > streamBytes
	switch {
	case cfg.IsSequenceClassification():
		m.score = w[ScoreKey]
	case cfg.TieWordEmbeddings:
		m.head = m.embed
	default:
		m.head = w[HeadKey]
	}
	m.layers = make([]layer, cfg.NumHiddenLayers)
	for i := range m.layers {
		l := &m.layers[i]
		l.inNorm = w[NormKeyOf(i, "input_layernorm")].Data
		l.postNorm = w[NormKeyOf(i, "post_attention_layernorm")].Data
		l.qNorm = w[NormKeyOf(i, "self_attn.q_norm")].Data
		l.kNorm = w[NormKeyOf(i, "self_attn.k_norm")].Data
		for p := Proj(0); p < NumProj; p++ {
			l.proj[p] = w[ProjKey(i, p)]
		}
	}
	return m, nil
}

// Head returns the output projection [vocab, hidden] (the embedding matrix
// when tied), or nil for a sequence-classification model.
func (m *Model) Head() *Tensor { return m.head }

// ScoreHead returns score.weight [num_labels, hidden], or nil.
func (m *Model) ScoreHead() *Tensor { return m.score }

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func (m *Model) checkTokens(ids []int) error {
	if len(ids) == 0 {
		return fmt.Errorf("running model: empty token sequence")
	}
	for _, id := range ids {
		if id < 0 || id >= m.Config.VocabSize {
			return fmt.Errorf("running model: token id %d outside vocab of %d", id, m.Config.VocabSize)
		}
	}
	return nil
}
