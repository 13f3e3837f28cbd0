//go:build !cuda

package cuda

import (
	"strings"
	"testing"
)

func TestOpenWithoutTheTagSaysHowToBuild(t *testing.T) {
	t.Setenv(EnvLibs, t.TempDir())
	_, err := Open()
	if err == nil || !strings.Contains(err.Error(), "go build -tags cuda") {
		t.Fatalf("Open without -tags cuda: %v", err)
	}
	if _, perr := Probe(); perr == nil || perr.Error() != err.Error() {
		t.Fatalf("Probe says %v, Open %v", perr, err)
	}
	if !driverOnPath() && !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Errorf("the error does not say the libraries are missing too: %v", err)
	}
}
