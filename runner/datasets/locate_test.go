package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHubCache lays out datasets--thu-coai--esconv the way huggingface_hub
// does: blobs, a snapshot whose files are symlinks to them, refs/main.
func fakeHubCache(t *testing.T, root string) string {
	t.Helper()
	repo := filepath.Join(root, "datasets--thu-coai--esconv")
	rev := "0123456789abcdef0123456789abcdef01234567"
	snap := filepath.Join(repo, "snapshots", rev)
	for _, d := range []string{filepath.Join(repo, "blobs"), snap, filepath.Join(repo, "refs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range map[string]string{"test.txt": "testdata/hf/esconv_test.jsonl", "valid.txt": "testdata/hf/train.txt"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		blob := filepath.Join(repo, "blobs", "blob-"+name)
		if err := os.WriteFile(blob, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", "blob-"+name), filepath.Join(snap, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(rev), 0o644); err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestHuggingFaceCacheLayout(t *testing.T) {
	isolate(t)
	cache := t.TempDir()
	snap := fakeHubCache(t, cache)
	t.Setenv("HF_HUB_CACHE", cache)
	got, err := Load(Spec{Name: ESConv, HF: "thu-coai/esconv", Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Emotion != "anxiety" {
		t.Errorf("test split: %d samples", len(got))
	}
	loc, err := Locate(Spec{Name: ESConv, HF: "thu-coai/esconv", Split: "validation"})
	if err != nil || loc != filepath.Join(snap, "valid.txt") {
		t.Errorf("validation split located at %q, %v", loc, err)
	}
	// No path and no id: the default id for esconv is searched too.
	if got, err := Load(Spec{Name: ESConv, Split: "valid"}); err != nil || len(got) != 2 {
		t.Errorf("default id: %d samples, %v", len(got), err)
	}
	// HF_HOME/hub is honoured the same way.
	home := t.TempDir()
	fakeHubCache(t, filepath.Join(home, "hub"))
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HOME", home)
	if got, err := Load(Spec{Name: ESConv, HF: "thu-coai/esconv", Split: "test", Limit: 2, Seed: 3}); err != nil || len(got) != 2 {
		t.Errorf("HF_HOME: %d samples, %v", len(got), err)
	}
	_, err = Load(Spec{Name: ESConv, HF: "thu-coai/esconv@v9", Split: "test"})
	if err == nil || !strings.Contains(err.Error(), "no snapshot for revision v9") {
		t.Errorf("unknown revision: %v", err)
	}
}

func TestMascotDatasetsEnv(t *testing.T) {
	isolate(t)
	t.Setenv(EnvDatasets, sharedDatasets(t))
	got, err := Load(Spec{Name: ESConv})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 196 {
		t.Errorf("%d dialogues via %s, want 196", len(got), EnvDatasets)
	}
}

func TestMissingDatasetSaysWhereItLooked(t *testing.T) {
	isolate(t)
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	_, err := Load(Spec{Name: EmpatheticDialogues, Split: "test"})
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %v, want *NotFoundError", err)
	}
	msg := err.Error()
	home, _ := os.UserHomeDir()
	for _, want := range []string{
		"dataset empathetic_dialogues (split test) not found; mascot looked in:",
		filepath.Join(cache, "datasets--facebook--empathetic_dialogues", "snapshots") + " (no such file or directory)",
		filepath.Join(home, ".cache", "huggingface", "hub", "datasets--facebook--empathetic_dialogues", "snapshots"),
		"$MASCOT_DATASETS (not set)",
		"setting path in the experiment's dataset block",
		"huggingface-cli download --repo-type dataset facebook/empathetic_dialogues",
		"setting MASCOT_DATASETS to a directory that holds empathetic_dialogues/",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	_, err = Load(Spec{Name: QMSum, Path: "no/such/place.jsonl"})
	abs, _ := filepath.Abs("no/such/place.jsonl")
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), abs+" (no such file or directory)") {
		t.Errorf("missing path: %v", err)
	}

	_, err = Load(Spec{Name: ESConv, Path: "testdata/hf", Split: "dev"})
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), `no dev.txt, dev.jsonl or dev.json for split "dev" inside`) {
		t.Errorf("missing split: %v", err)
	}

	t.Setenv(EnvDatasets, t.TempDir())
	_, err = Load(Spec{Name: QMSum, HF: "someone/qmsum"})
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), filepath.Join(os.Getenv(EnvDatasets), "qmsum")+" (no such file or directory)") ||
		!strings.Contains(err.Error(), "datasets--someone--qmsum") {
		t.Errorf("HF id not cached: %v", err)
	}
}
