// Package all registers every stage kind with runner.Default; cmd/mascot
// imports it for its side effects.
package all

import (
	_ "mascot.dev/mascot/runner/stages/candidates"
	_ "mascot.dev/mascot/runner/stages/episodes"
	_ "mascot.dev/mascot/runner/stages/judge"
	_ "mascot.dev/mascot/runner/stages/metrics"
	_ "mascot.dev/mascot/runner/stages/pairs"
	_ "mascot.dev/mascot/runner/stages/report"
	_ "mascot.dev/mascot/runner/stages/train"
)
