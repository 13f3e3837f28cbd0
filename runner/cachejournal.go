package runner

import (
	"context"

	"mascot.dev/mascot/results"
)

// Sending implements llm.Journal: the attempt is recorded in the run's
// journal before the client sends it; it is counted, in the stage of the
// unit ctx runs, with its outcome.
func (c *storeCache) Sending(ctx context.Context, key, role string, attempt int) (string, error) {
	seq := c.seq.Add(1)
	a := results.Attempt{ID: results.AttemptID(c.runID, seq), Seq: seq, RunID: c.runID, Role: role, Key: key, N: attempt}
	if t, ok := ctx.Value(unitTallyKey{}).(*unitTally); ok {
		a.StageKey = t.stage
	}
	if err := c.journal.Record(a); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.open[a.ID] = a
	c.mu.Unlock()
	return a.ID, nil
}

// attempts returns the open attempts among ids; c.mu is held.
func (c *storeCache) attempts(ids []string) []results.Attempt {
	out := make([]results.Attempt, 0, len(ids))
	for _, id := range ids {
		if a, ok := c.open[id]; ok {
			out = append(out, a)
		}
	}
	return out
}

// settledIn drops attempts that a committed transaction settled.
func (c *storeCache) settledIn(as []results.Attempt) {
	for _, a := range as {
		delete(c.open, a.ID)
	}
}

// Settled implements llm.Journal.
func (c *storeCache) Settled(ids []string) {
	c.mu.Lock()
	c.settled = append(c.settled, ids...)
	c.mu.Unlock()
}
