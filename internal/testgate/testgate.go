// Package testgate decides which tests run under a plain `go test ./...`
// and which need MASCOT_FULL=1 (set by .ci/run). It is test support, below
// every other layer: it imports nothing of mascot.
//
// Two kinds of gate:
//   - Long: an end-to-end suite too slow for Go's default test timeout on a
//     2-core machine (the full demo, kill/resume of real processes). It is
//     skipped, with the reason, unless MASCOT_FULL=1.
//   - Need: a test that needs a tool outside Go and gcc (Node/npm,
//     Chromium, Python with grpc). Without the tool it skips with a message
//     saying what to install; under MASCOT_FULL=1 it fails instead, so CI
//     cannot go green by skipping.
package testgate

import (
	"os"
	"testing"
)

// EnvFull is the variable that turns the long suites on and the missing
// tools into failures.
const EnvFull = "MASCOT_FULL"

// Full reports whether MASCOT_FULL=1.
func Full() bool { return os.Getenv(EnvFull) == "1" }

// Long skips t unless MASCOT_FULL=1; why says what the suite does and how
// long it takes.
func Long(t testing.TB, why string) {
	t.Helper()
	if !Full() {
		t.Skipf("long suite (%s): set %s=1 to run it", why, EnvFull)
	}
}

// Need skips t when ok is false, with the message saying what is missing
// and how to get it; under MASCOT_FULL=1 a missing tool fails the test.
func Need(t testing.TB, ok bool, missing string) {
	t.Helper()
	if ok {
		return
	}
	if Full() {
		t.Fatalf("%s (%s=1: required)", missing, EnvFull)
	}
	t.Skipf("%s; skipped (set %s=1 to make this a failure)", missing, EnvFull)
}
