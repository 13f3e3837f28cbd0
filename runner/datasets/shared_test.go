package datasets

import (
	"testing"

	"mascot.dev/mascot/internal/realdata"
)

// sharedDatasets returns the directory holding the real qmsum/ and esconv/
// data shipped under testdata/datasets.
func sharedDatasets(t testing.TB) string {
	t.Helper()
	return realdata.Dir(t)
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
