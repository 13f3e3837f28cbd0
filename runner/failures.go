package runner

import (
	"errors"
	"fmt"
	"strings"
)

// errSkipped marks a stage that did not run because a stage it reads
// from failed; the failure is the other stage's, reported there.
var errSkipped = errors.New("an input stage did not complete")

// stageFailures is the error a run ends with when stages failed: each
// failed stage with its own error in execution order (a missing dataset
// names the paths looked in), then, on one line, the stages that did not
// run because of them. Listing every stage of the graph as "failed" hides
// the one that did.
func stageFailures(order []string, bad map[string]error) error {
	var b strings.Builder
	var skipped []string
	for _, key := range order {
		err, ok := bad[key]
		switch {
		case !ok:
		case errors.Is(err, errSkipped):
			skipped = append(skipped, key)
		default:
			msg := strings.TrimPrefix(err.Error(), "stage "+key+": ")
			fmt.Fprintf(&b, "\n  %s: %s", key, strings.ReplaceAll(msg, "\n", "\n    "))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "\n  not run, because a stage they read from failed (%d): %s", len(skipped), strings.Join(skipped, ", "))
	}
	return fmt.Errorf("%w:%s\n(rerun the same command to retry what failed)", ErrStageFailed, b.String())
}
