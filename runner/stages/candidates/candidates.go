// Package candidates is the `candidates` stage kind: K Speaker responses
// per (context, persona), the raw material of persona preference pairs and
// the prompts of speaker GRPO. One unit is one (context, persona); with an
// endpoint that supports n, its K responses come from one request.
//
// Layer: runner/stages.
package candidates

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
)

// Config is #Candidates.
type Config struct {
	Dataset  string          `json:"dataset"`
	Roster   string          `json:"roster"`
	Endpoint string          `json:"endpoint"`
	K        int             `json:"k"`
	Sampling schema.Sampling `json:"sampling"`
}

type stage struct {
	env    *runner.Env
	key    string
	cfg    Config
	roster dialogue.Roster
	tmpl   dialogue.Templates
	roles  map[string]string // the Router's, read only: built once, not per unit
	units  int               // how many Units listed (set before any Run)
}

type payload struct {
	sample datasets.Sample
	agent  dialogue.Agent
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.roles = map[string]string{dialogue.RoleSpeaker: s.cfg.Endpoint}
	var err error
	if s.roster, err = stagekit.Roster(env, s.cfg.Roster); err != nil {
		return nil, err
	}
	s.tmpl = stagekit.Templates(env, s.cfg.Roster)
	return s, nil
}

func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	samples, err := stagekit.LoadDataset(s.env, s.cfg.Dataset)
	if err != nil {
		return nil, err
	}
	var units []runner.Unit
	for _, smp := range samples {
		inputs, err := unitInputs(smp, s.roster)
		if err != nil {
			return nil, err
		}
		for i, a := range s.roster {
			units = append(units, runner.Unit{Key: smp.ID + "/" + a.Name, Inputs: inputs[i],
				Payload: payload{sample: smp, agent: a}})
		}
	}
	s.units = len(units)
	return units, nil
}

// together says whether a unit's k single requests go out at once: when
// every unit's fit in the endpoint's slots together, so that a small stage
// takes one request's time per unit instead of k. A larger stage keeps the
// slots full either way, and its requests waiting together cost more CPU
// (dialogue.Config.Together).
func together(units, k, slots int, supportsN bool) bool {
	return !supportsN && k > 1 && units > 0 && units*k <= slots
}

// unitInputs returns the fingerprint inputs of a sample's unit for each
// agent of roster. The context is encoded, in canonical form, once for
// them all rather than by each unit's fingerprint (runner.Canonical); the
// fingerprints, and the units cached under them, are what the slice itself
// in the inputs gave (TestUnitInputsEncodeAsBefore).
func unitInputs(smp datasets.Sample, roster dialogue.Roster) ([]map[string]any, error) {
	ctxJSON, err := json.Marshal(smp.Context)
	if err == nil {
		ctxJSON, err = runner.CanonicalJSON(ctxJSON)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding the context of sample %s: %w", smp.ID, err)
	}
	out := make([]map[string]any, len(roster))
	for i, a := range roster {
		out[i] = map[string]any{"sample": smp.ID, "agent": a.Name, "context": runner.Canonical(ctxJSON)}
	}
	return out, nil
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.(payload)
	ep := s.env.Exp.Endpoints[s.cfg.Endpoint]
	cfg := dialogue.CandidateConfig{K: s.cfg.K, Seed: s.env.Seed(s.key), UnitKey: u.Fingerprint,
		Strict: s.env.Strict, SupportsN: ep.SupportsN, Speaker: stagekit.Sampling(s.cfg.Sampling),
		Together: together(s.units, s.cfg.K, ep.Concurrency, ep.SupportsN),
		Roster:   s.roster, Templates: s.tmpl}
	router := stagekit.Router{Client: s.env.LLM, Roles: s.roles}
	set, err := dialogue.GenerateCandidates(ctx, router, cfg, p.sample, p.agent)
	stagekit.CountDialogue(ctx, s.env, s.key, set.Counters)
	if err != nil {
		return nil, err
	}
	if len(set.Candidates) == 0 {
		if set.LastError != nil {
			return nil, fmt.Errorf("no candidate survived for %s (%d failed requests; the last: %w)", u.Key,
				set.Counters.NumGenerationFailures, set.LastError)
		}
		return nil, fmt.Errorf("no candidate survived for %s (%d empty responses)", u.Key, set.Counters.NumEmptyResponses)
	}
	// json.Marshal's bytes, in one pass (the prompt is most of a unit's row)
	prompt, model := llm.MessagesJSON(set.Prompt), ep.Model // one copy for all K rows
	return func(tx *results.Tx) error {
		rows := make([]results.Candidate, len(set.Candidates))
		for i, c := range set.Candidates {
			rows[i] = results.Candidate{Kind: "response", ContextID: p.sample.ID, Persona: p.agent.Name,
				SampleIdx: c.Index, Prompt: prompt, Text: c.Response, ModelID: model}
		}
		_, err := tx.InsertCandidates(rows)
		return err
	}, nil
}
