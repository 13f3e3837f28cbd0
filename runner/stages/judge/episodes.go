package judge

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// EpisodeTurns converts stored turns to plugin turns.
func EpisodeTurns(turns []results.Turn) []spec.Turn {
	out := make([]spec.Turn, len(turns))
	for i, t := range turns {
		ht := spec.Turn{Index: t.TurnIdx, Role: "agent", Speaker: t.AgentName, Text: t.Response, RoundID: t.RoundID}
		if t.TurnType == "user" {
			ht.Role, ht.Speaker = "user", "user"
		}
		if d := t.Directive; d != nil {
			ht.Directive = &spec.Directive{AgentName: d.AgentName, Action: d.Action, Tone: d.Tone}
		}
		out[i] = ht
	}
	return out
}

// episodeUnits makes one unit per upstream episodes unit: its agent turns
// (level agent) or its episodes (level collective).
func (s *stage) episodeUnits(ctx context.Context) ([]runner.Unit, error) {
	fps, err := s.upstreamUnits(s.cfg.Items)
	if err != nil {
		return nil, err
	}
	personas := s.personaCards(s.episodesRoster(s.cfg.Items))
	cards, err := json.Marshal(personas)
	if err != nil {
		return nil, fmt.Errorf("encoding persona cards: %w", err)
	}
	var units []runner.Unit
	for _, fp := range fps {
		eps, err := s.env.Store.EpisodesForUnit(ctx, fp)
		if err != nil {
			return nil, err
		}
		if len(eps) == 0 {
			continue
		}
		w := &work{targets: map[string]target{}}
		for _, e := range eps {
			turns := EpisodeTurns(e.Turns)
			if s.cfg.Level == LevelCollective {
				id := fmt.Sprintf("e%d", e.ID)
				w.items = append(w.items, spec.Item{ID: id, Kind: spec.KindEpisode, Turns: turns, Seed: s.seed(fmt.Sprintf("%s/%d", fp, e.Idx)),
					Metadata: map[string]string{"conv_id": e.ConvID, "system": e.System, spec.MetaPersonas: string(cards)}})
				w.targets[id] = target{episodeID: e.ID}
				continue
			}
			for i, t := range e.Turns {
				if t.TurnType == "user" {
					continue
				}
				id := fmt.Sprintf("t%d", t.ID)
				md := map[string]string{"conv_id": e.ConvID, "system": e.System}
				if d := turns[i].Directive; d != nil {
					b, err := json.Marshal(d)
					if err != nil {
						return nil, fmt.Errorf("encoding the directive of turn %d: %w", t.ID, err)
					}
					md[spec.MetaDirective] = string(b)
				}
				w.items = append(w.items, spec.Item{ID: id, Kind: spec.KindTurn, Context: turns[:i], Response: t.Response,
					AgentName: t.AgentName, Persona: personas[t.AgentName], Seed: s.seed(fmt.Sprintf("%s/%d/%d", fp, e.Idx, t.TurnIdx)),
					Metadata: md})
				w.targets[id] = target{turnID: t.ID, agent: t.AgentName}
			}
		}
		if len(w.items) == 0 {
			continue
		}
		units = append(units, runner.Unit{Key: fmt.Sprintf("%s/%d", eps[0].ConvID, eps[0].SampleIdx),
			Inputs: map[string]any{"episodes_unit": fp, "level": s.cfg.Level}, Payload: w})
	}
	return units, nil
}

// episodesRoster is the roster an episodes stage names ("" when none).
func (s *stage) episodesRoster(key string) string {
	var up struct {
		Roster string `json:"roster"`
	}
	_ = s.env.Exp.Stages[key].Decode(&up)
	return up.Roster
}
