package transfer

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestExportFilesAreReadableByOthers: an export's files are 0644, as a
// file os.Create makes, not the 0600 of the temporary file they are
// written through (an export is for others to read).
func TestExportFilesAreReadableByOthers(t *testing.T) {
	s := openTemp(t)
	addPipelineEpisodes(t, s, "r")
	dir := t.TempDir()
	if _, err := Export(context.Background(), s, "r", dir, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		if got := info.Mode().Perm(); got != 0o644 {
			t.Errorf("%s: mode %v, want -rw-r--r--", filepath.Base(p), got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("the export wrote no file")
	}
}
