package cpu

import (
	"os"
	"strings"
	"testing"
)

func TestOpenBLASAbsentNamesWhatWasTried(t *testing.T) {
	dir := t.TempDir()
	_, err := openOpenBLAS([]string{"libopenblas-mascot-absent.so.0"}, []string{dir})
	if err == nil {
		t.Fatal("loaded a library that does not exist")
	}
	for _, want := range []string{"libopenblas-mascot-absent.so.0", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestThreadTimeoutSetUnlessTheUserDid: OPENBLAS_THREAD_TIMEOUT is set to
// threadTimeout when the environment has none, and a user's value, even
// an empty one, is left as it is.
func TestThreadTimeoutSetUnlessTheUserDid(t *testing.T) {
	t.Setenv("OPENBLAS_THREAD_TIMEOUT", "")
	if got := chooseThreadTimeout(); got != "" || os.Getenv("OPENBLAS_THREAD_TIMEOUT") != "" {
		t.Errorf("an empty value set by the user: chose %q, the variable is now %q", got, os.Getenv("OPENBLAS_THREAD_TIMEOUT"))
	}
	t.Setenv("OPENBLAS_THREAD_TIMEOUT", "22")
	if got := chooseThreadTimeout(); got != "" || os.Getenv("OPENBLAS_THREAD_TIMEOUT") != "22" {
		t.Errorf("the user's 22: chose %q, the variable is now %q", got, os.Getenv("OPENBLAS_THREAD_TIMEOUT"))
	}
	if err := os.Unsetenv("OPENBLAS_THREAD_TIMEOUT"); err != nil {
		t.Fatal(err)
	}
	if got := chooseThreadTimeout(); got != threadTimeout || os.Getenv("OPENBLAS_THREAD_TIMEOUT") != threadTimeout {
		t.Errorf("unset: chose %q, the variable is now %q; want %q", got, os.Getenv("OPENBLAS_THREAD_TIMEOUT"), threadTimeout)
	}
}
