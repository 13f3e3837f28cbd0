package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// envShared overrides where tests find the real datasets (default:
// ../shared/datasets from the repository root).
const envShared = "MASCOT_SHARED_DATASETS"

// sharedDatasets returns the directory holding qmsum/ and esconv/.
func sharedDatasets(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(envShared); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test directory; set %s", envShared)
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "datasets")
	if _, err := os.Stat(filepath.Join(d, "qmsum")); err != nil {
		t.Fatalf("real datasets not found at %s (clone shared/ beside the repository or set %s): %v", d, envShared, err)
	}
	return d
}

// isolate points every lookup location at empty temporary directories so
// a developer's own Hugging Face cache cannot change a test's outcome.
func isolate(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("HF_HOME", "")
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HUGGINGFACE_HUB_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(EnvDatasets, "")
}
