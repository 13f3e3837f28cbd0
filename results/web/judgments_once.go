package web

import (
	"strings"

	"mascot.dev/mascot/results"
)

// scoredOnce keeps each score of a turn or an episode once. A judge
// plugin that pools several judges stores, beside each judge's own score
// (judge "rubric/<endpoint>"), the pooled one (judge "rubric", "mean over
// judges"); with a single judge under it the pooled score is that judge's
// score again, and the page listed every score twice. The pooled row is
// dropped when exactly one judge's row stands under it with the same
// score; with several judges it stays, as the score they make together.
func scoredOnce(js []results.Judgment) []results.Judgment {
	type key struct{ pooled, criterion, agent string }
	under := map[key][]results.Judgment{}
	for _, j := range js {
		if base, _, ok := strings.Cut(j.Judge, "/"); ok {
			k := key{base, j.Criterion, j.Agent}
			under[k] = append(under[k], j)
		}
	}
	out := js[:0:0]
	for _, j := range js {
		if subs := under[key{j.Judge, j.Criterion, j.Agent}]; len(subs) == 1 && subs[0].Score == j.Score {
			continue
		}
		out = append(out, j)
	}
	return out
}
