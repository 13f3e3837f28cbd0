package lora

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// MetaFile is mascot's own metadata beside a PEFT adapter. PEFT and vLLM
// ignore it; adapter_config.json's base_model_name_or_path stays what
// AutoPeftModel can resolve (a Hugging Face id or a local directory).
const MetaFile = "mascot_adapter.json"

// Meta is MetaFile: the identity of the base the adapter was trained on,
// as the runner fingerprints it ("stage:<sha256>" for a model another stage
// trained, else the base_model reference).
type Meta struct {
	Base string `json:"base"`
}

// WriteMeta writes MetaFile into dir (0644, like the adapter files).
func WriteMeta(dir string, m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("writing adapter metadata: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MetaFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing adapter metadata: %w", err)
	}
	return nil
}

// ReadMeta reads MetaFile from dir.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return m, fmt.Errorf("reading adapter metadata: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("parsing %s: %w", filepath.Join(dir, MetaFile), err)
	}
	return m, nil
}
