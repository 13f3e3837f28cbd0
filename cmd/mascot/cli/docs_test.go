package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCLIReferenceIsCurrent regenerates the CLI reference and compares it
// with docs/cli. UPDATE=1 rewrites docs/cli instead.
func TestCLIReferenceIsCurrent(t *testing.T) {
	committed := filepath.Join("..", "..", "..", "docs", "cli")
	if os.Getenv("UPDATE") == "1" {
		if err := os.RemoveAll(committed); err != nil {
			t.Fatal(err)
		}
		if err := WriteCLIReference(committed); err != nil {
			t.Fatal(err)
		}
	}
	fresh := t.TempDir()
	if err := WriteCLIReference(fresh); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(fresh)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadDir(committed)
	if err != nil {
		t.Fatalf("reading docs/cli: %v (regenerate: UPDATE=1 go test ./cmd/mascot/cli -run TestCLIReferenceIsCurrent)", err)
	}
	if len(have) != len(want) {
		t.Errorf("docs/cli has %d pages, the commands make %d (regenerate: UPDATE=1 go test ./cmd/mascot/cli -run TestCLIReferenceIsCurrent)", len(have), len(want))
	}
	for _, e := range want {
		w, err := os.ReadFile(filepath.Join(fresh, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h, err := os.ReadFile(filepath.Join(committed, e.Name()))
		if err != nil || string(h) != string(w) {
			t.Errorf("docs/cli/%s is stale (regenerate: UPDATE=1 go test ./cmd/mascot/cli -run TestCLIReferenceIsCurrent)", e.Name())
		}
	}
}
