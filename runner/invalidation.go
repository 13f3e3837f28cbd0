package runner

import (
	"context"
	"fmt"

	"mascot.dev/mascot/results"
)

// reportInvalidation prints, before any work, which stages the last run of
// the same config computed with the same fingerprint (reused) and which
// changed (invalidated).
func (r *run) reportInvalidation(ctx context.Context) {
	w := r.opts.Progress
	if w == nil {
		return
	}
	runs, err := r.opts.Store.ListRuns(ctx, results.RunFilter{ConfigName: r.opts.Loaded.Name, Limit: 1})
	if err != nil || len(runs) == 0 {
		return
	}
	prev, err := r.opts.Store.Stages(ctx, runs[0].ID)
	if err != nil || len(prev) == 0 {
		return
	}
	old := map[string]string{}
	for _, s := range prev {
		old[s.Key] = s.Fingerprint
	}
	var reused, changed, added []string
	for _, k := range r.order {
		switch fp, ok := old[k]; {
		case !ok:
			added = append(added, k)
		case fp == r.fps[k]:
			reused = append(reused, k)
		default:
			changed = append(changed, k)
		}
	}
	fmt.Fprintf(w, "compared with run %s: %d stage(s) unchanged (reused)", runs[0].ID, len(reused))
	if len(changed) > 0 {
		fmt.Fprintf(w, ", invalidated: %v", changed)
	}
	if len(added) > 0 {
		fmt.Fprintf(w, ", new: %v", added)
	}
	fmt.Fprintln(w)
}
