package judge

import (
	"context"
	"fmt"
	"strings"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/runner/stages/judge/plugstart"
)

// score runs one Score call of judge name and accounts for it in the
// unit's counters: the LLM requests the plugin made (through the run's
// gateway the host's client counted them in the unit's tally; a plugin
// that calls its endpoints itself reports them as statistics, which join
// the unit's tally per judge role), the plugin's restarts and timeouts. When any of the plugin's LLM requests failed for
// good, some items were given up: the unit fails, so a rerun retries it.
func (s *stage) score(ctx context.Context, name string, j *host.PluginJudge, items []spec.Item) (spec.ScoreResult, error) {
	before := j.Restarts()
	res, err := j.Score(ctx, items)
	plugstart.CountCall(ctx, s.env, s.key, name, before, j.Restarts(), err)
	if err != nil {
		return res, err
	}
	values := map[string]int64{}
	kept := res.Statistics[:0]
	for _, st := range res.Statistics {
		if rest, ok := strings.CutPrefix(st.Name, llm.TallyStatPrefix); ok {
			values[rest] += int64(st.Value)
		} else {
			kept = append(kept, st)
		}
	}
	res.Statistics = kept
	roles, err := llm.DecodeTally(values)
	if err != nil {
		return res, fmt.Errorf("reading the LLM counts of judge %s: %w", name, err)
	}
	if t := llm.TallyFrom(ctx); t != nil && !s.gateway[name] {
		t.Merge(roles) // through the gateway, the host counted them already
	}
	var failed int64
	for _, r := range roles {
		for _, v := range r.Failures {
			failed += v
		}
	}
	if failed > 0 {
		return res, fmt.Errorf("judge %s gave up on %d of %d items: %d LLM request(s) failed for good",
			name, res.AnnotationFailures, len(items), failed)
	}
	return res, nil
}
