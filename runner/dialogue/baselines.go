package dialogue

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"mascot.dev/mascot/llm"
)

// BaselineAgent is the agent_name of single-assistant baseline turns.
const BaselineAgent = "Assistant"

// cotSchema asks chain-of-thought baselines for reasoning and response.
var cotSchema = json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"response":{"type":"string"}},"required":["reasoning","response"],"additionalProperties":false}`)

var responseMarkerRE = regexp.MustCompile(`(?i)(?:final\s+)?(?:response|reply|answer)\s*[:：]`)

// ParseCoT extracts the reply from a chain-of-thought output: the JSON
// "response" (or "reply", "answer") field, else the text after the last
// "Response:"/"Reply:"/"Answer:" marker, else the whole text.
func ParseCoT(raw string) string {
	text := strings.TrimSpace(thinkRE.ReplaceAllString(raw, ""))
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		var m map[string]any
		if json.Unmarshal([]byte(text[i:j+1]), &m) == nil {
			for _, k := range []string{"response", "reply", "answer"} {
				if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
					return strings.TrimSpace(s)
				}
			}
		}
	}
	if locs := responseMarkerRE.FindAllStringIndex(text, -1); len(locs) > 0 {
		text = text[locs[len(locs)-1][1]:]
	}
	return strings.Trim(strings.TrimSpace(strings.NewReplacer("**", "").Replace(text)), `"`)
}

// baselineFlags says which prompt parts a baseline system uses.
func baselineFlags(system string) (cot, fewShot bool) {
	switch system {
	case SystemZeroShotCoT, SystemSelfConsistency:
		return true, false
	case SystemFewShot:
		return false, true
	case SystemFewShotCoT:
		return true, true
	}
	return false, false
}

// baselinePrompt renders the single-assistant prompt for the system.
func (e *engine) baselinePrompt(st *state) ([]llm.Message, bool, error) {
	cot, few := baselineFlags(e.cfg.System)
	d := e.data(st)
	d.CoT = cot
	if few {
		d.Examples = e.fewShotExamples()
	}
	sys, err := e.p.render("baseline_system", d)
	if err != nil {
		return nil, false, err
	}
	usr, err := e.p.render("baseline_user", d)
	if err != nil {
		return nil, false, err
	}
	return msgs(sys, usr), cot, nil
}

// fewShotExamples picks FewShotK examples from the pool (seeded per unit).
func (e *engine) fewShotExamples() string {
	pool := e.cfg.Baseline.Examples
	if pool == nil || pool.Len() == 0 {
		return ""
	}
	r := rngFor(e.cfg.Seed, e.cfg.SeedKey, "few-shot")
	idx := r.Perm(pool.Len())
	k := min(e.cfg.Baseline.FewShotK, len(idx))
	var b strings.Builder
	for n, i := range idx[:k] {
		ex := pool.At(i)
		fmt.Fprintf(&b, "Example %d:\n%s\nReply: %s\n\n", n+1, ex.Context, ex.Response)
	}
	return strings.TrimSpace(b.String())
}

// baselineSampling is the Speaker sampling, with the adapter for sft.
func (e *engine) baselineSampling() Sampling {
	s := e.cfg.Speaker
	if e.cfg.System == SystemSFT {
		s.Model = e.cfg.Baseline.SFTModel
	}
	return s
}

// recordBaseline adds a single-assistant agent turn.
func (e *engine) recordBaseline(st *state, round int, text, action, raw string) {
	st.add(Turn{RoundID: round, TurnType: TurnAgent, AgentName: BaselineAgent, Response: text,
		Directive: &Directive{AgentName: BaselineAgent, Action: action}, DirectiveOutput: raw}, BaselineAgent)
}

// baselineRound runs zero-shot, zero-shot-cot, few-shot, few-shot-cot and sft.
func (e *engine) baselineRound(ctx context.Context, st *state, round int, branch string) (bool, error) {
	prompt, cot, err := e.baselinePrompt(st)
	if err != nil {
		return false, err
	}
	var schema json.RawMessage
	var schemaName string
	if cot {
		schema, schemaName = cotSchema, "cot"
	}
	raw, err := e.c.text(ctx, RoleSpeaker, e.baselineSampling(), Pos{Step: e.cfg.System, Round: round, Branch: branch}, prompt, schema, schemaName)
	if err != nil {
		return false, e.c.fail(err)
	}
	text := raw
	if cot {
		text = ParseCoT(raw)
	}
	if text == "" {
		return false, e.c.empty(e.cfg.System + " reply")
	}
	e.recordBaseline(st, round, text, "", "")
	return true, nil
}

// selfConsistencyRound samples SelfConsistencyN chain-of-thought replies and
// keeps the most consistent one (MostConsistent).
func (e *engine) selfConsistencyRound(ctx context.Context, st *state, round int, branch string) (bool, error) {
	prompt, _, err := e.baselinePrompt(st)
	if err != nil {
		return false, err
	}
	pos := Pos{Step: e.cfg.System, Round: round, Branch: branch}
	raws, _, _, err := e.c.many(ctx, RoleSpeaker, e.cfg.Speaker, pos, prompt, cotSchema, "cot", e.cfg.Baseline.SelfConsistencyN, e.cfg.SupportsN)
	if err != nil {
		return false, err
	}
	var replies []string
	for _, r := range raws {
		if t := ParseCoT(r); t != "" {
			replies = append(replies, t)
		}
	}
	if len(replies) == 0 {
		return false, e.c.empty("self-consistency replies")
	}
	best := MostConsistent(replies)
	e.recordBaseline(st, round, replies[best], fmt.Sprintf("most consistent of %d", len(replies)), "")
	return true, nil
}
