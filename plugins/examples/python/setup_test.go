package python_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// interpreter is the Python the plugin's shebang names: Debian's, which sees
// the apt-installed grpc modules (a pyenv python3 on PATH does not).
const interpreter = "/usr/bin/python3"

// stubs checks that the interpreter and its modules are there and returns
// the directory of the Python stubs (the plugin's PYTHONPATH), generated once
// per test binary with genstubs.sh. Without the modules the test skips,
// unless MASCOT_FULL=1 (CI), where it fails.
func stubs(t *testing.T) string {
	t.Helper()
	probe := exec.Command(interpreter, "-c", "import grpc, google.protobuf, grpc_tools, cryptography")
	out, err := probe.CombinedOutput()
	testgate.Need(t, err == nil, fmt.Sprintf("the Python plugin needs %s with its grpc modules; install them with "+
		"apt-get install python3-grpcio python3-protobuf python3-grpc-tools python3-cryptography (%v: %s)",
		interpreter, err, bytes.TrimSpace(out)))
	stubsOnce.Do(func() {
		stubsDir, stubsErr = os.MkdirTemp("", "mascot-pystubs-")
		if stubsErr != nil {
			return
		}
		if out, err := exec.Command("./genstubs.sh", stubsDir).CombinedOutput(); err != nil {
			stubsErr = fmt.Errorf("generating the Python stubs: %v\n%s", err, out)
		}
	})
	if stubsErr != nil {
		t.Fatal(stubsErr)
	}
	return stubsDir
}

var (
	stubsOnce sync.Once
	stubsDir  string
	stubsErr  error
)

// TestMain removes the generated stubs after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if stubsDir != "" {
		if err := os.RemoveAll(stubsDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// script is the absolute path of the plugin script.
func script(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("lengthjudge.py")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
