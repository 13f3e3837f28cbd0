package train

import (
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/trainer/train"
)

// TestHubBaseNamesItsHubID checks that an adapter trained on a hub model
// names the hub id (and revision) in adapter_config.json, which
// AutoPeftModel resolves, while the runner's fingerprint goes to
// lora.MetaFile; a local directory is named by its absolute path.
func TestHubBaseNamesItsHubID(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	snap := filepath.Join(cache, "models--Qwen--Qwen3-8B", "snapshots", "abc123")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snap, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ref, name, rev string
	}{
		{"Qwen/Qwen3-8B", "Qwen/Qwen3-8B", ""},
		{"Qwen/Qwen3-8B@abc123", "Qwen/Qwen3-8B", "abc123"},
		{snap, snap, ""},
	}
	for _, c := range cases {
		b, err := resolveBase(nil, ModelRef{BaseModel: c.ref})
		if err != nil {
			t.Fatalf("%s: %v", c.ref, err)
		}
		var o train.Options
		b.describe(&o)
		if b.Dir != snap || o.BaseModelName != c.name || o.BaseRevision != c.rev || o.BaseFingerprint != c.ref {
			t.Errorf("%s: dir %s, base_model_name_or_path %q revision %q fingerprint %q; want %s, %q, %q, %q",
				c.ref, b.Dir, o.BaseModelName, o.BaseRevision, o.BaseFingerprint, snap, c.name, c.rev, c.ref)
		}
	}
}
