package rubric

import (
	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/plugins/spec"
)

// RubricVersion names the criteria and anchors of PaperV1
// (experiments/prompts/criteria.cue).
var RubricVersion = prompts.Paper().Version

// Levels of criteria.
const (
	LevelAgent      = prompts.LevelAgent
	LevelCollective = prompts.LevelCollective
)

// PaperV1 returns the paper's five per-agent and four collective criteria,
// in the paper's order, as experiments/prompts/criteria.cue defines them:
// the names are the paper's, the descriptions and anchors are ours.
func PaperV1() []spec.Criterion {
	all := prompts.Paper().All()
	out := make([]spec.Criterion, len(all))
	for i, c := range all {
		out[i] = spec.Criterion{ID: c.ID, Name: c.Name, Description: c.Description, Level: c.Level,
			Anchors: make([]spec.Anchor, len(c.Anchors))}
		for k, a := range c.Anchors {
			out[i].Anchors[k] = spec.Anchor{Score: k + 1, Text: a}
		}
	}
	return out
}

// criteriaFor returns the criteria of one level, restricted to ids when given.
func criteriaFor(all []spec.Criterion, level string, ids []string) []spec.Criterion {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []spec.Criterion
	for _, c := range all {
		if c.Level == level && (len(ids) == 0 || want[c.ID]) {
			out = append(out, c)
		}
	}
	return out
}
