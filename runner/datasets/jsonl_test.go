package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"mascot.dev/mascot/internal/labels"
)

func TestGenericJSONL(t *testing.T) {
	isolate(t)
	got, err := Load(Spec{Name: JSONL, Path: "testdata/generic.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d samples, want 3", len(got))
	}
	a, b, c := got[0], got[1], got[2]
	if a.ID != "s1" || a.Dataset != ESConv || a.Valence != labels.Negative || a.Context[1].Strategy != "Affirmation and Reassurance" {
		t.Errorf("Sample form: %+v", a)
	}
	if b.ID != "c2" || b.Dataset != JSONL || b.Valence != labels.Positive || b.Meta["source"] != "handmade" || b.Meta["turns_hint"] != "3" {
		t.Errorf("conv_id form: %+v", b)
	}
	if c.ID != "generic-3" || c.Domain != labels.DomainProduct || c.Context[0].Text != "No id on this one." {
		t.Errorf("no id: %+v", c)
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"data/convs.jsonl": {Data: []byte(`{"conv_id":"x","context":[{"speaker":"user","text":"hi"}]}` + "\n")},
		"data/bad.jsonl":   {Data: []byte(`{"conv_id":"y","context":[]}` + "\n")},
	}
	got, err := LoadFS(fsys, Spec{Name: JSONL, Path: "data/convs.jsonl"})
	if err != nil || len(got) != 1 || got[0].ID != "x" {
		t.Errorf("LoadFS: %+v, %v", got, err)
	}
	_, err = LoadFS(fsys, Spec{Name: JSONL, Path: "data/bad.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "loading jsonl from data/bad.jsonl: line 1: sample y has no context turns") {
		t.Errorf("bad line: %v", err)
	}
	_, err = LoadFS(fsys, Spec{Name: JSONL, Path: "data/none.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "data/none.jsonl (in the given file system)") {
		t.Errorf("missing: %v", err)
	}
	_, err = LoadFS(fsys, Spec{Name: JSONL, Path: "../up"})
	if err == nil || !strings.Contains(err.Error(), "needs a path inside") {
		t.Errorf("escape: %v", err)
	}
}

// TestEmptyDatasetIsAnError: an empty file, or filters that keep nothing,
// fail the load instead of giving a stage zero units to finish "done".
func TestEmptyDatasetIsAnError(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "test.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Spec{Name: JSONL, Path: empty})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "test.jsonl") {
		t.Errorf("empty file: err = %v, want ErrEmpty naming the file", err)
	}
	one := filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(one, []byte(`{"conv_id": "a", "emotion": "joyful", "context": [{"speaker": "seeker", "text": "hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(Spec{Name: JSONL, Path: one, Filters: Filters{Emotion: []string{"sad"}}})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "none of its 1 samples pass the filters") {
		t.Errorf("filtered to nothing: err = %v, want ErrEmpty", err)
	}
}

// TestFileOfAnotherSplitIsRefused: test.jsonl given for split train is the
// wrong data, said as such (not "not found"); the right split loads.
func TestFileOfAnotherSplitIsRefused(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "test.jsonl")
	if err := os.WriteFile(p, []byte(`{"conv_id": "a", "context": [{"speaker": "seeker", "text": "hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Spec{Name: JSONL, Path: p, Split: "train"})
	var nf *NotFoundError
	if !errors.Is(err, ErrWrongSplit) || errors.As(err, &nf) {
		t.Errorf("split train from test.jsonl: err = %v, want ErrWrongSplit", err)
	}
	if got, err := Load(Spec{Name: JSONL, Path: p, Split: "test"}); err != nil || len(got) != 1 {
		t.Errorf("split test: %d samples, %v", len(got), err)
	}
}
