package qwen3

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"mascot.dev/mascot/trainer/safetensors"
)

// Load reads a Hugging Face checkpoint directory: config.json plus
// model.safetensors or sharded model-*.safetensors with
// model.safetensors.index.json, in BF16, F16 or F32 (converted to float32).
// The weights share one slab the kernel may back with 2 MB pages
// (safetensors.ReadDir).
func Load(dir string) (*Model, error) {
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("loading checkpoint %s: %w", dir, err)
	}
	ts, err := safetensors.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("loading checkpoint %s: %w", dir, err)
	}
	w := make(Weights, len(ts))
	for k, t := range ts {
		w[k] = (*Tensor)(t)
	}
	m, err := New(cfg, w)
	if err != nil {
		return nil, fmt.Errorf("loading checkpoint %s: %w", dir, err)
	}
	return m, nil
}

// Save writes the checkpoint in float32; see SaveAs.
func (m *Model) Save(dir string) error { return m.SaveAs(dir, safetensors.F32) }

// SaveAs writes config.json and model.safetensors (sharded above 5 GB) in
// dtype. Only the tensors of Config.Shapes() are written: lm_head is
// omitted when tied, as save_pretrained does. Active adapters are not
// merged (trainer/autodiff's Model.MergedWeights folds them in).
func (m *Model) SaveAs(dir string, dtype safetensors.DType) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	cfg := m.Config
	cfg.TorchDtype = map[safetensors.DType]string{safetensors.F32: "float32", safetensors.BF16: "bfloat16", safetensors.F16: "float16"}[dtype]
	if cfg.ModelType == "" {
		cfg.ModelType = "qwen3"
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	ts := map[string]*safetensors.Tensor{}
	for k := range cfg.Shapes() {
		ts[k] = (*safetensors.Tensor)(m.Weights[k])
	}
	if err := safetensors.WriteDir(dir, ts, dtype, 0); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	return nil
}
