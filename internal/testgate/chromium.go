package testgate

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// chromiumNames are the binaries Chromium ships as (Debian's chromium and
// chromium-headless-shell among them), in the order they are tried.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell", "chromium-headless-shell"}

// Chromium returns the headless browser a test drives: $MASCOT_CHROMIUM,
// else the first of chromiumNames on PATH. MASCOT_SKIP_BROWSER=1 skips the
// test on request; a missing browser skips it with what to install (fails
// under MASCOT_FULL=1, see Need).
func Chromium(t testing.TB) string {
	t.Helper()
	if os.Getenv("MASCOT_SKIP_BROWSER") == "1" {
		t.Skip("MASCOT_SKIP_BROWSER=1: browser test skipped on request")
	}
	if p := os.Getenv("MASCOT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Need(t, false, "Chromium not found on PATH (looked for "+strings.Join(chromiumNames, ", ")+
		"): install it (Debian: apt-get install -y chromium) or point MASCOT_CHROMIUM at it")
	return ""
}
