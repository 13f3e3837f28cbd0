package judge

import (
	"strings"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
)

// judgeName is the row judge of a plugin score: "<judge>" for pooled or
// single-model scores, "<judge>/<model name>" for one of several models.
func judgeName(judge, sub string) string {
	if sub == "" {
		return judge
	}
	return judge + "/" + sub
}

// judgmentRows turns one item's scores into rows.
func judgmentRows(judge string, info spec.JudgeInfo, t target, r spec.ItemResult) []results.Judgment {
	raws := map[string][]string{}
	for _, o := range r.RawOutputs {
		raws[o.Judge] = append(raws[o.Judge], o.Text)
	}
	out := make([]results.Judgment, 0, len(r.Scores))
	for _, sc := range r.Scores {
		out = append(out, results.Judgment{Judge: judgeName(judge, sc.Judge), RubricVersion: info.RubricVersion,
			Criterion: sc.CriterionID, Agent: t.agent, Score: sc.Raw, ScaleMin: info.Scale.Min, ScaleMax: info.Scale.Max,
			CandidateID: t.candidateID, TurnID: t.turnID, EpisodeID: t.episodeID, Rationale: sc.Rationale,
			Raw: strings.Join(raws[sc.Judge], "\n\n")})
	}
	return out
}

// comparisonRows turns one comparison item's preferences into rows; the
// choice is the winning system, or results.Tie.
func comparisonRows(judge string, t target, r spec.ItemResult) []results.Comparison {
	if t.systems == nil {
		return nil
	}
	raws := map[string][]string{}
	for _, o := range r.RawOutputs {
		raws[o.Judge] = append(raws[o.Judge], o.Text)
	}
	out := make([]results.Comparison, 0, len(r.Preferences))
	for _, p := range r.Preferences {
		choice := results.Tie
		if sys, ok := t.systems[p.WinnerID]; ok {
			choice = sys
		}
		out = append(out, results.Comparison{Judge: judgeName(judge, p.Judge), Criterion: p.CriterionID,
			ContextID: t.context, Systems: t.order, EpisodeIDs: t.episodes, Choice: choice, Rationale: p.Rationale,
			Raw: strings.Join(raws[p.Judge], "\n\n")})
	}
	return out
}

// scoped returns copies of items whose metadata carries the unit's LLM
// gateway scope (llm.ScopeMetadata), which the rubric judge sends with its
// requests.
func scoped(items []spec.Item, token string) []spec.Item {
	out := make([]spec.Item, len(items))
	for i, it := range items {
		md := make(map[string]string, len(it.Metadata)+1)
		for k, v := range it.Metadata {
			md[k] = v
		}
		md[llm.ScopeMetadata] = llm.ItemScope(token, it.ID)
		it.Metadata = md
		out[i] = it
	}
	return out
}

// voided lists the ids of the items a Score call gave up on (all of them
// when it returned no results).
func voided(items []spec.Item, res spec.ScoreResult) []string {
	var out []string
	for i, it := range items {
		if i >= len(res.Results) || res.Results[i].Failed {
			out = append(out, it.ID)
		}
	}
	return out
}
