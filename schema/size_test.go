package schema_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestOversizedSpecRejectedBeforeReading writes a spec of 2 MiB (a valid
// one, padded with a long comment and a field CUE would have to read): it
// is refused before CUE parses it, naming the file, as a file named
// alone or as part of its directory; a spec just under the limit is read.
func TestOversizedSpecRejectedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	head := "package spec\n\nname: \"big\"\n"
	pad := "// " + strings.Repeat("x", 1<<10) + "\n"
	big := filepath.Join(dir, "big.cue")
	if err := os.WriteFile(big, []byte(head+strings.Repeat(pad, 2<<10)+"junk: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{big, dir} {
		_, err := schema.Load(arg, runner.Default.Kinds(), schema.Options{Cwd: dir})
		var errs schema.Errors
		if !errors.As(err, &errs) || len(errs) != 1 {
			t.Fatalf("Load(%s): %v, want one schema error", arg, err)
		}
		if msg := errs[0].String(); !strings.Contains(msg, "big.cue:1:1") || !strings.Contains(msg, "at most 1 MiB") ||
			strings.Contains(msg, "junk") {
			t.Fatalf("Load(%s): %s", arg, msg)
		}
	}
	// Under the limit, CUE reads it (and finds the unclosed list).
	if err := os.WriteFile(big, []byte(head+strings.Repeat(pad, 512)+"junk: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Load(big, runner.Default.Kinds(), schema.Options{Cwd: dir}); err == nil || strings.Contains(err.Error(), "at most") {
		t.Fatalf("a spec under the limit: %v, want CUE's own error", err)
	}
}
