package lora

import (
	"math"
	"strings"

	"mascot.dev/mascot/trainer/qwen3"
)

// Prefix is what PEFT puts before the Hugging Face module path.
const Prefix = "base_model.model."

// KeyShape is one adapter tensor name and its shape.
type KeyShape struct {
	Key   string
	Shape []int
}

// KeyA is the PEFT key of lora_A for projection p of layer i, e.g.
// "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight".
func KeyA(i int, p qwen3.Proj) string { return peftKey(qwen3.ProjKey(i, p), "A") }

// KeyB is the PEFT key of lora_B for projection p of layer i.
func KeyB(i int, p qwen3.Proj) string { return peftKey(qwen3.ProjKey(i, p), "B") }

func peftKey(weightKey, ab string) string {
	return ModuleKey(strings.TrimSuffix(weightKey, ".weight"), ab)
}

// ModuleKey is the PEFT key of lora_<ab> ("A" or "B") of the Hugging Face
// module path module, e.g. "model.layers.0.self_attn.q_proj".
func ModuleKey(module, ab string) string { return Prefix + module + ".lora_" + ab + ".weight" }

// InitBound is the bound of PEFT's default lora_A initialisation
// (init_lora_weights=true: kaiming_uniform_ with a=√5) for in inputs:
// A ~ U(−InitBound, InitBound); B starts at 0.
func InitBound(in int) float64 { return 1 / math.Sqrt(float64(in)) }

// KeyShapes lists every adapter tensor for model config m, in layer then
// projection order, A before B: A is [r, in] and B is [out, r]. Nothing is
// allocated beyond the list.
func KeyShapes(m qwen3.Config, c Config) ([]KeyShape, error) {
	projs, err := c.Projs()
	if err != nil {
		return nil, err
	}
	var out []KeyShape
	for i := 0; i < m.NumHiddenLayers; i++ {
		for _, p := range projs {
			sh := m.ProjShape(p)
			out = append(out,
				KeyShape{KeyA(i, p), []int{c.R, sh[1]}},
				KeyShape{KeyB(i, p), []int{sh[0], c.R}})
		}
	}
	return out, nil
}
