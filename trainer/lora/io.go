package lora

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

// Save writes the adapter in PEFT format with float32 tensors; see SaveAs.
func (a *Adapter) Save(dir string) error { return a.SaveAs(dir, safetensors.F32) }

// SaveAs writes adapter_config.json (inference_mode true, as
// save_pretrained writes it) and adapter_model.safetensors (metadata
// {"format": "pt"}) in dtype into dir, creating it.
func (a *Adapter) SaveAs(dir string, dtype safetensors.DType) error {
	if err := a.Config.Validate(); err != nil {
		return fmt.Errorf("saving adapter: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("saving adapter: %w", err)
	}
	c := a.Config
	c.InferenceMode = true
	if c.RankPattern == nil {
		c.RankPattern = map[string]int{}
	}
	if c.AlphaPattern == nil {
		c.AlphaPattern = map[string]float64{}
	}
	if c.InitLoraWeights == nil {
		c.InitLoraWeights = true
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("saving adapter: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving adapter: %w", err)
	}
	ts := make(map[string]*safetensors.Tensor, len(a.Weights))
	for k, t := range a.Weights {
		ts[k] = (*safetensors.Tensor)(t)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, WeightsFile), ts, dtype, map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("saving adapter: %w", err)
	}
	return nil
}

// Load reads a PEFT adapter directory. Keys saved with PEFT's adapter name
// left in (".lora_A.default.weight") are accepted. Every tensor must be a
// lora_A/lora_B pair of a target module with rank r; call Check (or
// qwen3.Model.WithAdapters) to match shapes against a model.
func Load(dir string) (*Adapter, error) {
	c, err := ReadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("loading adapter %s: %w", dir, err)
	}
	ts, _, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		return nil, fmt.Errorf("loading adapter %s: %w", dir, err)
	}
	projs, _ := c.Projs()
	targeted := map[string]bool{}
	for _, p := range projs {
		targeted[p.Name()] = true
	}
	a := &Adapter{Config: c, Weights: make(map[string]*qwen3.Tensor, len(ts))}
	for k, t := range ts {
		k = strings.Replace(k, ".default.weight", ".weight", 1)
		rest, ok := strings.CutPrefix(k, Prefix)
		var mod string
		switch {
		case ok && strings.HasSuffix(rest, ".lora_A.weight"):
			mod = strings.TrimSuffix(rest, ".lora_A.weight")
			if len(t.Shape) != 2 || t.Shape[0] != c.R {
				return nil, fmt.Errorf("loading adapter %s: %s has shape %v, want [%d, in]", dir, k, t.Shape, c.R)
			}
		case ok && strings.HasSuffix(rest, ".lora_B.weight"):
			mod = strings.TrimSuffix(rest, ".lora_B.weight")
			if len(t.Shape) != 2 || t.Shape[1] != c.R {
				return nil, fmt.Errorf("loading adapter %s: %s has shape %v, want [out, %d]", dir, k, t.Shape, c.R)
			}
		default:
			return nil, fmt.Errorf("loading adapter %s: unexpected tensor %q", dir, k)
		}
		if !targeted[mod[strings.LastIndexByte(mod, '.')+1:]] {
			return nil, fmt.Errorf("loading adapter %s: tensor %q is not in target_modules", dir, k)
		}
		a.Weights[k] = (*qwen3.Tensor)(t)
	}
	for k := range a.Weights {
		other := strings.Replace(k, ".lora_A.", ".lora_B.", 1)
		if other == k {
			other = strings.Replace(k, ".lora_B.", ".lora_A.", 1)
		}
		if _, ok := a.Weights[other]; !ok {
			return nil, fmt.Errorf("loading adapter %s: %s has no partner %s", dir, k, other)
		}
	}
	return a, nil
}
