package dialogue

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"mascot.dev/mascot/llm"
)

// DirectiveSchema is the JSON schema sent with Director requests: the agent
// is an enum of the roster names.
func DirectiveSchema(r Roster) json.RawMessage {
	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"agent":  map[string]any{"type": "string", "enum": r.Names()},
			"action": map[string]any{"type": "string"},
			"tone":   map[string]any{"type": "string"},
		},
		"required":             []string{"agent", "action", "tone"},
		"additionalProperties": false,
	}
	b, _ := json.Marshal(s) // a map of strings always marshals
	return b
}

// directorPrompt renders the Director's messages for the current state.
func (e *engine) directorPrompt(st *state) ([]llm.Message, error) {
	d := e.data(st)
	sys, err := e.p.render("director_system", d)
	if err != nil {
		return nil, err
	}
	usr, err := e.p.render("director_user", d)
	if err != nil {
		return nil, err
	}
	return msgs(sys, usr), nil
}

// drawn is what one Director request (k choices) gave: the resolved
// directives, the raw outputs, where each was drawn and the prompt.
type drawn struct {
	ds     []Directive
	raws   []string
	from   []Draw
	prompt []llm.Message
}

// directives asks the Director for k directives (k = 1 for a linear
// episode) and resolves each to a roster agent.
func (e *engine) directives(ctx context.Context, st *state, round int, branch string, k int) (drawn, error) {
	var d drawn
	var err error
	if d.prompt, err = e.directorPrompt(st); err != nil {
		return d, err
	}
	pos := Pos{Step: "director", Round: round, Branch: branch}
	raws, oks, from, err := e.c.many(ctx, RoleDirector, e.cfg.Director, pos, d.prompt, DirectiveSchema(e.cfg.Roster), "directive", k, e.cfg.SupportsN)
	if err != nil {
		return d, err
	}
	d.raws, d.from, d.ds = raws, from, make([]Directive, k)
	for i, raw := range raws {
		if d.ds[i], err = e.resolve(raw, !oks[i], round, branch, i); err != nil {
			return d, err
		}
	}
	return d, nil
}

// resolve parses one Director output, applying the random-agent fallback
// (counted) and, for mascot-c, the random speaking order (not counted). A
// failed call (already counted) and an empty output also fall back.
func (e *engine) resolve(raw string, failed bool, round int, branch string, idx int) (Directive, error) {
	r := rngFor(e.cfg.Seed, e.cfg.SeedKey, "agent", strconv.Itoa(round), branch, strconv.Itoa(idx))
	randomAgent := func() string { return e.cfg.Roster[r.IntN(len(e.cfg.Roster))].Name }
	d, err := ParseDirective(raw, e.cfg.Roster)
	switch {
	case err == nil:
	case failed:
		d = Directive{AgentName: randomAgent()}
		e.c.counters.NumRandomAgentFallbacks++
	case raw == "":
		e.c.counters.NumRandomAgentFallbacks++
		if err := e.c.empty("director output"); err != nil {
			return d, err
		}
		d = Directive{AgentName: randomAgent()}
	case errors.Is(err, ErrDirectiveParse):
		e.c.counters.NumDirectiveParseFailures++
		e.c.counters.NumRandomAgentFallbacks++
		if e.cfg.Strict {
			return d, err
		}
		d = Directive{AgentName: randomAgent()}
	default: // unknown agent: keep action and tone
		e.c.counters.NumRandomAgentFallbacks++
		if e.cfg.Strict {
			return d, err
		}
		d.AgentName = randomAgent()
	}
	if e.cfg.System == SystemMASCOTC {
		d.AgentName = randomAgent()
	}
	return d, nil
}

// agentByName returns the roster card for name (the Director resolved it).
func (e *engine) agentByName(name string) Agent {
	if i := e.cfg.Roster.Find(name); i >= 0 {
		return e.cfg.Roster[i]
	}
	return Agent{Name: name}
}

// speakerPrompt renders the Speaker's messages: persona card (or the
// generic prompt for mascot-p), directive and history.
func (e *engine) speakerPrompt(st *state, a Agent, d *Directive, generic bool) ([]llm.Message, error) {
	data := e.data(st)
	data.Agent = a
	if d != nil {
		data.Directive = *d
	}
	var sys string
	var err error
	switch t, ok := e.agentT[a.Name]; {
	case generic:
		sys, err = e.p.render("generic_speaker", data)
	case ok:
		sys, err = renderTemplate(t, data)
	default:
		sys, err = e.p.render("speaker_system", data)
	}
	if err != nil {
		return nil, err
	}
	usr, err := e.p.render("speaker_user", data)
	if err != nil {
		return nil, err
	}
	return msgs(sys, usr), nil
}

// speak runs the Speaker for directive d and records the agent turn.
// It returns false when no turn was recorded (failure or empty response).
func (e *engine) speak(ctx context.Context, st *state, d Directive, raw string, round int, branch string) (bool, error) {
	a := e.agentByName(d.AgentName)
	prompt, err := e.speakerPrompt(st, a, &d, e.cfg.System == SystemMASCOTP)
	if err != nil {
		return false, err
	}
	text, err := e.c.text(ctx, RoleSpeaker, e.cfg.Speaker, Pos{Step: "speaker", Round: round, Branch: branch}, prompt, nil, "")
	if err != nil {
		return false, e.c.fail(err)
	}
	if text == "" {
		return false, e.c.empty("speaker " + a.Name)
	}
	dd := d
	st.add(Turn{RoundID: round, TurnType: TurnAgent, Directive: &dd, AgentName: a.Name, Response: text, DirectiveOutput: raw}, a.Name)
	return true, nil
}
