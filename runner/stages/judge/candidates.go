package judge

import (
	"context"
	"fmt"

	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/stages/stagekit"
)

// upstreamUnits returns the done unit fingerprints of stage key.
func (s *stage) upstreamUnits(key string) ([]string, error) {
	out, err := s.env.Output(key)
	if err != nil {
		return nil, err
	}
	return out.Units, nil
}

// candidateUnits makes one unit per upstream (context, persona) unit.
func (s *stage) candidateUnits(ctx context.Context) ([]runner.Unit, error) {
	fps, err := s.upstreamUnits(s.cfg.Items)
	if err != nil {
		return nil, err
	}
	cands, err := s.env.Store.CandidateTexts(ctx, fps)
	if err != nil {
		return nil, fmt.Errorf("candidates stage %s: %w", s.cfg.Items, err)
	}
	contexts, personas, err := s.candidateSources()
	if err != nil {
		return nil, err
	}
	var units []runner.Unit
	var w *work
	pos := 0 // the candidate's place in its unit (by sample index)
	for i, c := range cands {
		pos++
		if i == 0 || c.UnitFP != cands[i-1].UnitFP {
			pos = 0
			w = &work{targets: map[string]target{}}
			units = append(units, runner.Unit{Key: fmt.Sprintf("%s/%s", c.ContextID, c.Persona),
				Inputs:  map[string]any{"candidates_unit": c.UnitFP, "context": c.ContextID, "persona": c.Persona},
				Payload: w})
		}
		id := fmt.Sprintf("c%d", c.ID)
		w.items = append(w.items, spec.Item{ID: id, Kind: spec.KindCandidate, Context: contexts[c.ContextID],
			Response: c.Text, AgentName: c.Persona, Persona: personas[c.Persona], Seed: s.seed(fmt.Sprintf("%s/%d", c.UnitFP, pos)),
			Metadata: map[string]string{"context_id": c.ContextID}})
		w.targets[id] = target{candidateID: c.ID, agent: c.Persona}
	}
	return units, nil
}

// candidateSources loads the candidates stage's dataset contexts (as turns)
// and its roster's persona cards.
func (s *stage) candidateSources() (map[string][]spec.Turn, map[string]string, error) {
	var up struct {
		Dataset string `json:"dataset"`
		Roster  string `json:"roster"`
	}
	if err := s.env.Exp.Stages[s.cfg.Items].Decode(&up); err != nil {
		return nil, nil, err
	}
	samples, err := stagekit.LoadDataset(s.env, up.Dataset)
	if err != nil {
		return nil, nil, err
	}
	contexts := make(map[string][]spec.Turn, len(samples))
	for _, smp := range samples {
		contexts[smp.ID] = sampleTurns(smp)
	}
	return contexts, s.personaCards(up.Roster), nil
}

func sampleTurns(smp datasets.Sample) []spec.Turn {
	out := make([]spec.Turn, len(smp.Context))
	for i, u := range smp.Context {
		role := "agent"
		if u.Speaker == datasets.Seeker || u.Speaker == "user" {
			role = "user"
		}
		out[i] = spec.Turn{Index: i, Role: role, Speaker: u.Speaker, Text: u.Text}
	}
	return out
}

// personaCards maps agent names of a roster to a one-paragraph card.
func (s *stage) personaCards(roster string) map[string]string {
	out := map[string]string{}
	r, ok := s.env.Exp.Rosters[roster]
	if !ok {
		return out
	}
	for _, a := range r.Agents {
		card := a.Name
		if a.Role != "" {
			card += " (" + a.Role + ")"
		}
		if a.Description != "" {
			card += ": " + a.Description
		}
		if a.Style != "" {
			card += " Style: " + a.Style + "."
		}
		out[a.Name] = card
	}
	return out
}
