package benchsuite

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestRunMeasuredReportsTheCommandsOwnPeak: with half a GiB touched in
// this process, a small command started through runMeasured reports its
// own peak RSS, not this process's; started directly, Linux counts this
// process's memory in the child's peak (logged, the reason for the
// helper). A failing command's exit and output come back as the error;
// the variables given reach the command.
func TestRunMeasuredReportsTheCommandsOwnPeak(t *testing.T) {
	const held = 512 << 20
	big := make([]byte, held)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	small := []string{os.Args[0], "-test.run=^$"} // this binary, running no test

	direct := exec.Command(small[0], small[1:]...)
	if out, err := direct.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", small, err, out)
	}
	if ru, ok := sysUsage(direct); ok {
		t.Logf("started directly: peak RSS %d MiB (this process holds %d MiB)", ru.Maxrss>>10, held>>20)
	}

	u, err := runMeasured(t.TempDir(), nil, small...)
	if err != nil {
		t.Fatal(err)
	}
	if u.MaxRSS <= 0 || u.MaxRSS >= held>>10/2 {
		t.Errorf("through the helper: peak RSS %d KiB; want the small command's own, under %d MiB", u.MaxRSS, held>>21)
	}
	if u.CPU <= 0 {
		t.Errorf("through the helper: %g CPU-s", u.CPU)
	}
	runtime.KeepAlive(big)

	_, err = runMeasured(t.TempDir(), nil, os.Args[0], "-test.no-such-flag")
	if err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("a failing command: %v; want its exit status and output", err)
	}

	// The variables a row adds reach the command (the demo's built-in BLAS run).
	check := []string{"/bin/sh", "-c", `[ "$MASCOT_MEASURED_PROBE" = yes ] || { echo "not set"; exit 3; }`}
	if _, err := runMeasured(t.TempDir(), []string{"MASCOT_MEASURED_PROBE=yes"}, check...); err != nil {
		t.Errorf("with the variable: %v", err)
	}
	if _, err := runMeasured(t.TempDir(), nil, check...); err == nil || !strings.Contains(err.Error(), "not set") {
		t.Errorf("without the variable: %v; want the command's failure", err)
	}
}
