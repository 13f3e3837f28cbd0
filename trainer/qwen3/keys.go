package qwen3

import "fmt"

// Proj names one linear projection of a decoder layer.
type Proj int

// The seven linear projections of a Qwen3 decoder layer.
const (
	QProj Proj = iota
	KProj
	VProj
	OProj
	GateProj
	UpProj
	DownProj
	NumProj
)

var projModule = [NumProj]string{
	"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
	"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
}

// Module is the module path inside a layer, e.g. "self_attn.q_proj".
func (p Proj) Module() string { return projModule[p] }

// Name is the short PEFT target name, e.g. "q_proj".
func (p Proj) Name() string {
	m := projModule[p]
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == '.' {
			return m[i+1:]
		}
	}
	return m
}

// ProjByName maps a short name such as "gate_proj" to its Proj.
func ProjByName(name string) (Proj, bool) {
	for p := Proj(0); p < NumProj; p++ {
		if p.Name() == name {
			return p, true
		}
	}
	return 0, false
}

// ProjShape returns [out, in] of projection p.
func (c Config) ProjShape(p Proj) [2]int {
	D, I := c.HiddenSize, c.IntermediateSize
	switch p {
	case QProj:
		return [2]int{c.QDim(), D}
	case KProj, VProj:
		return [2]int{c.KVDim(), D}
	case OProj:
		return [2]int{D, c.QDim()}
	case GateProj, UpProj:
		return [2]int{I, D}
	default:
		return [2]int{D, I}
	}
}

// Key names of the non-layer tensors.
const (
	EmbedKey = "model.embed_tokens.weight"
	NormKey  = "model.norm.weight"
	HeadKey  = "lm_head.weight"
	ScoreKey = "score.weight"
)

// ProjKey is the weight key of projection p in layer i, e.g.
// "model.layers.3.self_attn.q_proj.weight".
func ProjKey(i int, p Proj) string {
	return fmt.Sprintf("model.layers.%d.%s.weight", i, p.Module())
}

// NormKeyOf is the key of a layer norm: "input_layernorm",
// "post_attention_layernorm", "self_attn.q_norm" or "self_attn.k_norm".
func NormKeyOf(i int, norm string) string {
	return fmt.Sprintf("model.layers.%d.%s.weight", i, norm)
}

// Shapes lists every tensor a checkpoint of this config holds, with its
// shape, as written by Save (lm_head omitted when tied; score.weight instead
// of lm_head for sequence classification). No weights are allocated.
func (c Config) Shapes() map[string][]int {
	D, d := c.HiddenSize, c.HeadDim
	s := map[string][]int{EmbedKey: {c.VocabSize, D}, NormKey: {D}}
	for i := 0; i < c.NumHiddenLayers; i++ {
		s[NormKeyOf(i, "input_layernorm")] = []int{D}
		s[NormKeyOf(i, "post_attention_layernorm")] = []int{D}
		s[NormKeyOf(i, "self_attn.q_norm")] = []int{d}
		s[NormKeyOf(i, "self_attn.k_norm")] = []int{d}
		for p := Proj(0); p < NumProj; p++ {
			sh := c.ProjShape(p)
			s[ProjKey(i, p)] = []int{sh[0], sh[1]}
		}
	}
	switch {
	case c.IsSequenceClassification():
		s[ScoreKey] = []int{c.NumLabels, D}
	case !c.TieWordEmbeddings:
		s[HeadKey] = []int{c.VocabSize, D}
	}
	return s
}

// NumParams counts the parameters of Shapes (a tied head counted once).
func (c Config) NumParams() int64 {
	var n int64
	for _, sh := range c.Shapes() {
		m := int64(1)
		for _, x := range sh {
			m *= int64(x)
		}
		n += m
	}
	return n
}
