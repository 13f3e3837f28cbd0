package qwen3tok

import (
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

func TestDirHoldsTokenizer(t *testing.T) {
	d, err := Dir()
	if err != nil {
		testgate.Need(t, false, err.Error())
	}
	if _, err := os.Stat(filepath.Join(d, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
}
