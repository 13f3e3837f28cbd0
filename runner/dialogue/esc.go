package dialogue

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// escAspects are the three analysis agents of multiagent-esc.
var escAspects = []string{"emotion", "cause", "intention"}

var (
	strategySchema = json.RawMessage(`{"type":"object","properties":{"strategy":{"type":"string"},"reason":{"type":"string"}},"required":["strategy","reason"],"additionalProperties":false}`)
	voteSchema     = json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string"},"vote":{"type":"integer"}},"required":["reason","vote"],"additionalProperties":false}`)
	reflectSchema  = json.RawMessage(`{"type":"object","properties":{"critique":{"type":"string"},"revised":{"type":"string"}},"required":["critique","revised"],"additionalProperties":false}`)
	intRE          = regexp.MustCompile(`-?\d+`)
)

// escTrace is written as the turn's directive_output so the pipeline's
// decisions can be inspected.
type escTrace struct {
	Analysis  map[string]string `json:"analysis"`
	Retrieved []int             `json:"retrieved"`
	Proposals []string          `json:"proposals"`
	Votes     []int             `json:"votes,omitempty"`
	TieBreak  bool              `json:"tie_break,omitempty"`
	Strategy  string            `json:"strategy"`
	Revised   bool              `json:"revised"`
}

// jsonField reads one field of the outermost JSON object in raw.
func jsonField(raw, key string) (any, bool) {
	i, j := strings.Index(raw, "{"), strings.LastIndex(raw, "}")
	if i < 0 || j <= i {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal([]byte(raw[i:j+1]), &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// parseVote reads a candidate index from a vote output, or -1.
func parseVote(raw string, n int) int {
	v := -1
	switch x, _ := jsonField(raw, "vote"); t := x.(type) {
	case float64:
		v = int(t)
	case string:
		v, _ = strconv.Atoi(strings.Trim(t, "[] "))
	default:
		if m := intRE.FindString(raw); m != "" {
			v, _ = strconv.Atoi(m)
		}
	}
	if v < 0 || v >= n {
		return -1
	}
	return v
}

// parseStrategy reads a strategy proposal, or "".
func parseStrategy(raw string) string {
	if v, ok := jsonField(raw, "strategy"); ok {
		if s, ok := v.(string); ok {
			return NormalizeStrategy(s)
		}
	}
	return NormalizeStrategy(raw)
}

// escRound runs the MultiAgentESC pipeline for one reply.
func (e *engine) escRound(ctx context.Context, st *state, round int, branch string) (bool, error) {
	cfg := e.cfg.Baseline.ESC
	d := e.data(st)
	pos := func(step string, i int) Pos { return Pos{Step: step, Round: round, Branch: branch, Sample: i} }
	tr := escTrace{Analysis: map[string]string{}}

	// 1. Dialogue analysis.
	var analysis strings.Builder
	for _, aspect := range escAspects {
		d.Aspect = aspect
		text, err := e.escCall(ctx, "esc_analysis", d, RoleSpeaker, pos("esc-"+aspect, 0), nil)
		if err != nil {
			return false, err
		}
		if text == "" {
			text = "unknown"
		}
		tr.Analysis[aspect] = text
		fmt.Fprintf(&analysis, "%s: %s\n", aspect, text)
	}
	d.Analysis = strings.TrimSpace(analysis.String())

	// 2. Strategy deliberation with retrieval.
	d.Strategies = ESConvStrategies()
	d.Examples, tr.Retrieved = e.retrieve(d.History + "\n" + d.Analysis)
	seen := map[string]bool{}
	var strategies []string
	for i := range cfg.Deliberators {
		raw, err := e.escCall(ctx, "esc_strategy", d, RoleSpeaker, pos("esc-strategy", i), strategySchema)
		if err != nil {
			return false, err
		}
		s := parseStrategy(raw)
		tr.Proposals = append(tr.Proposals, s)
		if s != "" && !seen[s] {
			seen[s] = true
			strategies = append(strategies, s)
		}
	}
	if len(strategies) == 0 {
		strategies = []string{e.retrievedMajority(tr.Retrieved)}
	}

	// 3. One response per proposed strategy.
	var cands, candStrat []string
	for i, s := range strategies {
		d.Strategy = s
		text, err := e.escCall(ctx, "esc_response", d, RoleSpeaker, pos("esc-response", i), nil)
		if err != nil {
			return false, err
		}
		if text != "" {
			cands, candStrat = append(cands, text), append(candStrat, s)
		}
	}
	if len(cands) == 0 {
		return false, e.c.empty("multiagent-esc responses")
	}

	// 4. Debate and majority vote; a tie-break call when the vote ties.
	win := 0
	if len(cands) > 1 {
		var err error
		win, err = e.escVote(ctx, d, cands, pos, &tr)
		if err != nil {
			return false, err
		}
	}

	// 5. Self-reflection.
	d.Strategy, d.Response = candStrat[win], cands[win]
	final := cands[win]
	raw, err := e.escCall(ctx, "esc_reflect", d, RoleSpeaker, pos("esc-reflect", 0), reflectSchema)
	if err != nil {
		return false, err
	}
	if v, ok := jsonField(raw, "revised"); ok {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			final, tr.Revised = strings.TrimSpace(s), strings.TrimSpace(s) != cands[win]
		}
	}
	tr.Strategy = candStrat[win]
	b, _ := json.Marshal(tr) // plain strings and ints always marshal
	e.recordBaseline(st, round, final, tr.Strategy, string(b))
	return true, nil
}

// escVote lets every deliberator vote; ties go to the tie-break call.
func (e *engine) escVote(ctx context.Context, d PromptData, cands []string, pos func(string, int) Pos, tr *escTrace) (int, error) {
	d.Candidates = cands
	tally := make([]int, len(cands))
	for i := range e.cfg.Baseline.ESC.Deliberators {
		raw, err := e.escCall(ctx, "esc_vote", d, RoleSpeaker, pos("esc-vote", i), voteSchema)
		if err != nil {
			return 0, err
		}
		v := parseVote(raw, len(cands))
		tr.Votes = append(tr.Votes, v)
		if v >= 0 {
			tally[v]++
		}
	}
	var top []int
	for i, n := range tally {
		switch {
		case len(top) == 0 || n > tally[top[0]]:
			top = []int{i}
		case n == tally[top[0]]:
			top = append(top, i)
		}
	}
	if len(top) == 1 {
		return top[0], nil
	}
	tr.TieBreak = true
	tied := make([]string, len(top))
	for i, c := range top {
		tied[i] = cands[c]
	}
	d.Candidates = tied
	raw, err := e.escCall(ctx, "esc_tie_break", d, e.cfg.Baseline.ESC.TieBreakRole, pos("esc-tie", 0), voteSchema)
	if err != nil {
		return 0, err
	}
	if v := parseVote(raw, len(tied)); v >= 0 {
		return top[v], nil
	}
	return top[0], nil
}

// escCall renders the template as a single user message and calls role;
// failures are counted and give "" in tolerant mode.
func (e *engine) escCall(ctx context.Context, tmpl string, d PromptData, role string, p Pos, schema json.RawMessage) (string, error) {
	prompt, err := e.p.render(tmpl, d)
	if err != nil {
		return "", err
	}
	sys := "You are part of a multi-agent emotional-support system. " + e.task
	text, err := e.c.text(ctx, role, e.cfg.Speaker, p, msgs(sys, prompt), schema, strings.ReplaceAll(tmpl, "_", "-"))
	if err != nil {
		return "", e.c.fail(err)
	}
	return text, nil
}

// retrieve formats the top RetrieveK pool examples for query.
func (e *engine) retrieve(query string) (string, []int) {
	pool := e.cfg.Baseline.Examples
	if pool == nil || pool.Len() == 0 {
		return "", nil
	}
	idx := pool.Search(query, e.cfg.Baseline.ESC.RetrieveK)
	var b strings.Builder
	for _, i := range idx {
		ex := pool.At(i)
		fmt.Fprintf(&b, "%s\nStrategy: %s\nReply: %s\n\n", ex.Context, ex.Strategy, ex.Response)
	}
	return strings.TrimSpace(b.String()), idx
}

// retrievedMajority is the most common canonical strategy among the
// retrieved examples (first wins ties), else "Question".
func (e *engine) retrievedMajority(idx []int) string {
	count := map[string]int{}
	best := ""
	for _, i := range idx {
		s := NormalizeStrategy(e.cfg.Baseline.Examples.At(i).Strategy)
		if s == "" {
			continue
		}
		count[s]++
		if best == "" || count[s] > count[best] {
			best = s
		}
	}
	if best == "" {
		return "Question"
	}
	return best
}
