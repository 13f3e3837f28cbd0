package runner_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
)

// TestTwoProcessesShareTheWork runs the same experiment in two mascot
// processes on one database at once: every unit must be executed once (the
// server sees each request once), the other process waiting for it and
// reusing it.
func TestTwoProcessesShareTheWork(t *testing.T) {
	// At concurrency 3 each unit is claimed by its worker; at 8 the units
	// are claimed two at a time, a batch ahead of the workers (claimAhead).
	for _, conc := range []int{3, 8} {
		t.Run(fmt.Sprintf("concurrency %d", conc), func(t *testing.T) { twoProcessesShareTheWork(t, conc) })
	}
}

func twoProcessesShareTheWork(t *testing.T, conc int) {
	srv := fakevllm.Start(t, fakevllm.Options{Latency: fakevllm.Latency{Base: 40 * time.Millisecond}})
	spec := candidatesSpec(t, srv.URL(), 2, conc, ", supports_n: false")
	db := filepath.Join(t.TempDir(), "m.db")
	store, err := results.Open(db) // migrated before the processes start
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	a, outA := startHelper(t, spec, db)
	b, outB := startHelper(t, spec, db)
	sa, errA := helperSummary(t, a, outA)
	sb, errB := helperSummary(t, b, outB)
	if errA != nil || errB != nil {
		t.Fatalf("processes failed: %v, %v", errA, errB)
	}
	// 9 units (3 contexts x 3 personas), K=2 single requests each.
	if got := srv.Counters().Served["/v1/chat/completions"]; got != 18 {
		t.Fatalf("server answered %d completions, want 18: units were executed twice", got)
	}
	if sa.Ran+sb.Ran != 9 || sa.Failed+sb.Failed != 0 {
		t.Fatalf("processes ran %d + %d units (%d + %d failed), want 9 in all", sa.Ran, sb.Ran, sa.Failed, sb.Failed)
	}
}
