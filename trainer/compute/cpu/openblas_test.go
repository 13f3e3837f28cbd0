package cpu

import (
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
