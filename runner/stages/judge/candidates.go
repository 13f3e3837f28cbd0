package judge

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/stages/stagekit"
)

// candidateRow is one stored candidate to judge.
type candidateRow struct {
	id        int64
	unit      string
	contextID string
	persona   string
	text      string
}

// upstreamUnits returns the done unit fingerprints of stage key.
func (s *stage) upstreamUnits(key string) ([]string, error) {
	out, err := s.env.Output(key)
	if err != nil {
		return nil, err
	}
	return out.Units, nil
}

// unitList encodes fingerprints for `IN (SELECT value FROM json_each(?))`.
func unitList(fps []string) string {
	b, _ := json.Marshal(fps)
	return string(b)
}

func (s *stage) readCandidates(ctx context.Context, fps []string) ([]candidateRow, error) {
	rows, err := s.env.Store.Reader().QueryContext(ctx, `SELECT id, unit_fp, context_id, persona, text
		FROM candidates WHERE unit_fp IN (SELECT value FROM json_each(?)) ORDER BY unit_fp, sample_idx, id`, unitList(fps))
	if err != nil {
		return nil, fmt.Errorf("reading candidates of %s: %w", s.cfg.Items, err)
	}
	defer rows.Close()
	var out []candidateRow
	for rows.Next() {
		var c candidateRow
		if err := rows.Scan(&c.id, &c.unit, &c.contextID, &c.persona, &c.text); err != nil {
			return nil, fmt.Errorf("reading candidates of %s: %w", s.cfg.Items, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// candidateUnits makes one unit per upstream (context, persona) unit.
func (s *stage) candidateUnits(ctx context.Context) ([]runner.Unit, error) {
	fps, err := s.upstreamUnits(s.cfg.Items)
	if err != nil {
		return nil, err
	}
	cands, err := s.readCandidates(ctx, fps)
	if err != nil {
		return nil, err
	}
	contexts, personas, err := s.candidateSources()
	if err != nil {
		return nil, err
	}
	var units []runner.Unit
	var w *work
	for i, c := range cands {
		if i == 0 || c.unit != cands[i-1].unit {
			w = &work{targets: map[string]target{}}
			units = append(units, runner.Unit{Key: fmt.Sprintf("%s/%s", c.contextID, c.persona),
				Inputs:  map[string]any{"candidates_unit": c.unit, "context": c.contextID, "persona": c.persona},
				Payload: w})
		}
		id := fmt.Sprintf("c%d", c.id)
		w.items = append(w.items, host.Item{ID: id, Kind: host.KindCandidate, Context: contexts[c.contextID],
			Response: c.text, AgentName: c.persona, Persona: personas[c.persona], Seed: s.seed(id),
			Metadata: map[string]string{"context_id": c.contextID}})
		w.targets[id] = target{candidateID: c.id, agent: c.persona}
	}
	return units, nil
}

// candidateSources loads the candidates stage's dataset contexts (as turns)
// and its roster's persona cards.
func (s *stage) candidateSources() (map[string][]host.Turn, map[string]string, error) {
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
	contexts := make(map[string][]host.Turn, len(samples))
	for _, smp := range samples {
		contexts[smp.ID] = sampleTurns(smp)
	}
	return contexts, s.personaCards(up.Roster), nil
}

func sampleTurns(smp datasets.Sample) []host.Turn {
	out := make([]host.Turn, len(smp.Context))
	for i, u := range smp.Context {
		role := "agent"
		if u.Speaker == datasets.Seeker || u.Speaker == "user" {
			role = "user"
		}
		out[i] = host.Turn{Index: i, Role: role, Speaker: u.Speaker, Text: u.Text}
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
