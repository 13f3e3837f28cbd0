package cpu

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestIdleOpenBLASThreadsSleep loads the real OpenBLAS in a child process
// (this test binary again) whose environment has no
// OPENBLAS_THREAD_TIMEOUT, runs products on two threads, then sleeps
// 300 ms: the process may use little CPU in that sleep. With OpenBLAS's
// own default its second thread spins for 2^28 cycles after the last
// product, some 70–130 ms of CPU, so a backend that set the variable
// after loading the library, or not at all, fails it. MASCOT_FULL=1
// (CI, which installs OpenBLAS) makes a missing library an error.
func TestIdleOpenBLASThreadsSleep(t *testing.T) {
	if os.Getenv("MASCOT_TEST_IDLE_CHILD") == "1" {
		idleChild()
		return
	}
	if _, err := openOpenBLAS(openBLASNames, openBLASDirs); err != nil {
		if os.Getenv("MASCOT_FULL") == "1" {
			t.Fatal(err)
		}
		t.Skip("OpenBLAS is not installed:", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENBLAS_THREAD_TIMEOUT=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestIdleOpenBLASThreadsSleep$")
	cmd.Env = append(env, "MASCOT_TEST_IDLE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var idleMS float64
	var desc string
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "idle-cpu-ms "); ok {
			idleMS, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "describe "); ok {
			desc = v
		}
	}
	if !strings.Contains(desc, "OPENBLAS_THREAD_TIMEOUT") {
		t.Errorf("the backend did not say it chose the idle timeout: %q", desc)
	}
	if idleMS > 40 {
		t.Errorf("the process used %.0f ms of CPU in a 300 ms sleep after its products: OpenBLAS's threads spun\n%s", idleMS, out)
	}
}

// idleChild is TestIdleOpenBLASThreadsSleep's child: it prints the
// library's description and the CPU it used while asleep.
func idleChild() {
	o, err := loadOpenBLAS()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	o.setThreads(2)
	const n = 512
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7), float32(i%5)
	}
	for range 5 {
		o.sgemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
	}
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	time.Sleep(300 * time.Millisecond)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpuNS := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	fmt.Println("describe", o.describe())
	fmt.Printf("idle-cpu-ms %.1f\n", float64(cpuNS)/1e6)
}
