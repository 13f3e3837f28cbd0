package train

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/trainer/train"
)

// TestAdapterHashIgnoresWhereTheBaseLives: two runs that train the same
// weights from the same base in different run directories get one
// artefact hash (adapter_config.json names the base by its directory);
// other weights, or another base, get another.
func TestAdapterHashIgnoresWhereTheBaseLives(t *testing.T) {
	write := func(basePath, weights string) train.Result {
		dir := t.TempDir()
		cfg, _ := json.Marshal(map[string]any{"peft_type": "LORA", "r": 8, "base_model_name_or_path": basePath})
		files := map[string]string{}
		for name, body := range map[string][]byte{"adapter_config.json": cfg, "adapter_model.safetensors": []byte(weights)} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := addFile(files, dir, name); err != nil {
				t.Fatal(err)
			}
		}
		return train.Result{Dir: dir, Files: files}
	}
	meta := func(base string) map[string]any { return map[string]any{"base": base} }
	a := artifact("adapter", write("/runs/A/pretrain", "w1"), meta("stage:abc"))
	b := artifact("adapter", write("/elsewhere/runs/B/pretrain", "w1"), meta("stage:abc"))
	if a.SHA256 != b.SHA256 {
		t.Fatalf("the same adapter trained in two run directories hashes %s and %s", a.SHA256, b.SHA256)
	}
	if c := artifact("adapter", write("/runs/A/pretrain", "w2"), meta("stage:abc")); c.SHA256 == a.SHA256 {
		t.Fatal("other weights hash the same")
	}
	if d := artifact("adapter", write("/runs/A/pretrain", "w1"), meta("stage:def")); d.SHA256 == a.SHA256 {
		t.Fatal("another base hashes the same")
	}
	if e := artifact("adapter", write("Qwen/Qwen3-8B", "w1"), meta("Qwen/Qwen3-8B")); e.SHA256 != dirHash(write("Qwen/Qwen3-8B", "w1").Files) {
		t.Fatal("a hub base (no location in its name) changed the plain file hash")
	}
}
