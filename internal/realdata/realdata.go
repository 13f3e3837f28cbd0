// Package realdata locates the real datasets the tests read: the QMSum test
// split and a four-meeting sample of its train split (MIT) and the ESConv
// failed-dialogue file (CC BY-NC 4.0), shipped
// with their licences under testdata/datasets at the repository root so
// that `go test ./...` needs nothing beside the clone. It is test support,
// below every other layer.
package realdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvDir overrides the directory holding qmsum/ and esconv/.
const EnvDir = "MASCOT_SHARED_DATASETS"

// Dir returns the directory holding qmsum/ (test.jsonl, test/) and esconv/
// (FailedESConv.json); it fails the test when they are missing.
func Dir(t testing.TB) string {
	t.Helper()
	d := os.Getenv(EnvDir)
	if d == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok {
			t.Fatal("locating the repository: runtime.Caller failed")
		}
		d = filepath.Join(filepath.Dir(file), "..", "..", "testdata", "datasets")
	}
	if _, err := os.Stat(filepath.Join(d, "qmsum", "test.jsonl")); err != nil {
		t.Fatalf("real datasets not found at %s (set %s): %v", d, EnvDir, err)
	}
	return d
}

// File returns the path of rel (e.g. "esconv/FailedESConv.json") under Dir.
func File(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(Dir(t), filepath.FromSlash(rel))
}
