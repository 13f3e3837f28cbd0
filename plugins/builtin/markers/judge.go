package markers

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Judge is the markers judge (sdk.Judge).
type Judge struct {
	cfg  Config
	want map[string]bool // criteria scored (all when empty)
}

var _ sdk.Judge = (*Judge)(nil)

// New returns a markers judge with the default configuration.
func New() *Judge {
	j := &Judge{}
	j.cfg.Validate()
	return j
}

// Describe implements sdk.Judge.
func (j *Judge) Describe(context.Context) (sdk.JudgeInfo, error) {
	return sdk.JudgeInfo{Name: "markers", Version: "1", RubricVersion: Version, Criteria: Criteria(),
		Scale:     sdk.Scale{Min: 1, Max: 5},
		ItemKinds: []spec.ItemKind{spec.KindCandidate, spec.KindTurn, spec.KindEpisode}}, nil
}

// Configure implements sdk.Judge.
func (j *Judge) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	cfg, ds := sdk.DecodeConfig[Config](raw)
	if spec.HasErrors(ds) {
		return ds, nil
	}
	j.cfg, j.want = cfg, nil
	if len(cfg.Criteria) > 0 {
		j.want = map[string]bool{}
		for _, id := range cfg.Criteria {
			j.want[id] = true
		}
	}
	return ds, nil
}

// Score implements sdk.Judge: each item is scored on the criteria of its
// level; an item that cannot be scored gets an error diagnostic.
func (j *Judge) Score(_ context.Context, items []sdk.Item) (sdk.ScoreResult, error) {
	res := sdk.ScoreResult{Results: make([]sdk.ItemResult, len(items))}
	for i, it := range items {
		r := sdk.ItemResult{ItemID: it.ID}
		var err error
		switch it.Kind {
		case spec.KindCandidate, spec.KindTurn:
			r.Scores, err = j.agentItem(it)
		case spec.KindEpisode:
			r.Scores, err = j.episodeItem(it)
		default:
			err = fmt.Errorf("the markers judge does not score %s items", it.Kind)
		}
		if err != nil {
			r.Diagnostics = []sdk.Diagnostic{spec.Errorf("", "%v", err)}
		}
		res.Results[i] = r
	}
	return res, nil
}

// add appends criterion id's score when the config asks for it.
func (j *Judge) add(out []spec.Score, id string, raw float64, why string) []spec.Score {
	if j.want != nil && !j.want[id] {
		return out
	}
	return append(out, spec.Score{CriterionID: id, Raw: raw, Rationale: why})
}

// agentItem scores a candidate or a turn against the conversation before it.
func (j *Judge) agentItem(it spec.Item) ([]spec.Score, error) {
	d, err := directiveOf(it)
	if err != nil {
		return nil, err
	}
	earlier := make([]string, len(it.Context))
	for i, t := range it.Context {
		earlier[i] = t.Text
	}
	ts := j.scoreResponse(it.AgentName, it.Response, j.markersOf(it.AgentName, it.Persona), earlier, d)
	var out []spec.Score
	out = j.add(out, PersonaMarkers, ts.persona, ts.why[PersonaMarkers])
	if ts.hasDirective {
		out = j.add(out, DirectiveCompliance, ts.directive, ts.why[DirectiveCompliance])
	}
	out = j.add(out, NonRedundancy, ts.nonRedundancy, ts.why[NonRedundancy])
	out = j.add(out, WellFormed, ts.wellFormed, ts.why[WellFormed])
	return out, nil
}

// episodeItem averages the per-agent scores over an episode's agent turns
// and adds participation.
func (j *Judge) episodeItem(it spec.Item) ([]spec.Score, error) {
	cards := map[string]string{}
	if raw := it.Metadata[spec.MetaPersonas]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &cards); err != nil {
			return nil, fmt.Errorf("reading metadata %q: %w", spec.MetaPersonas, err)
		}
	}
	var sum turnScores
	var agents, directed int
	spoke := map[string]bool{}
	var order []string // the agent turns' speakers, in turn order
	earlier := make([]string, 0, len(it.Turns))
	for _, t := range it.Turns {
		if t.Role != "agent" {
			earlier = append(earlier, t.Text)
			continue
		}
		ts := j.scoreResponse(t.Speaker, t.Text, j.markersOf(t.Speaker, cards[t.Speaker]), earlier, t.Directive)
		earlier = append(earlier, t.Text)
		agents++
		spoke[t.Speaker] = true
		order = append(order, t.Speaker)
		sum.persona += ts.persona
		sum.nonRedundancy += ts.nonRedundancy
		sum.wellFormed += ts.wellFormed
		if ts.hasDirective {
			directed++
			sum.directive += ts.directive
		}
	}
	if agents == 0 {
		return nil, fmt.Errorf("episode has no agent turns to score")
	}
	n := float64(agents)
	var out []spec.Score
	out = j.add(out, GroupPersonaMarkers, sum.persona/n, fmt.Sprintf("mean over %d agent turns", agents))
	if directed > 0 {
		out = j.add(out, GroupDirectiveCompliance, sum.directive/float64(directed), fmt.Sprintf("mean over %d directed turns", directed))
	}
	out = j.add(out, GroupNonRedundancy, sum.nonRedundancy/n, fmt.Sprintf("mean over %d agent turns", agents))
	out = j.add(out, GroupWellFormed, sum.wellFormed/n, fmt.Sprintf("mean over %d agent turns", agents))
	most := agents
	if len(cards) > 0 {
		most = min(most, len(cards))
	}
	out = j.add(out, Participation, scale(float64(len(spoke))/float64(most)),
		fmt.Sprintf("%d distinct companions spoke in %d agent turns (at most %d could)", len(spoke), agents, most))
	if len(j.cfg.StageOrder) > 0 {
		kept := supportOrderKept(order, j.cfg.StageOrder)
		out = j.add(out, SupportOrder, scale(float64(kept)/float64(agents)),
			fmt.Sprintf("%d of %d agent turns keep the support stages in order", kept, agents))
	}
	return out, nil
}

// supportOrderKept counts the turns that keep the stages in order: the
// first turn by the first stage's companion, every later one by a
// companion of the same stage as the turn before it or a later one. A
// companion stage_order does not name breaks the order.
func supportOrderKept(speakers, stages []string) int {
	rank := map[string]int{}
	for i, a := range stages {
		rank[a] = i
	}
	kept, prev := 0, 0
	for i, s := range speakers {
		r, ok := rank[s]
		if !ok {
			continue
		}
		if (i == 0 && r == 0) || (i > 0 && r >= prev) {
			kept++
		}
		prev = r
	}
	return kept
}
