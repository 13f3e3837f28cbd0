package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/dialogue"
)

// dstate is one training state of the Director's trajectory GRPO: a
// conversation prefix at the start of a round the Director plays.
type dstate struct {
	Key    string // "<sample>/r<round>/<prefix hash>", the GRPO prompt
	Sample string // the dataset sample (the episode's conv_id)
	Round  int    // the round the Director acts in next
	Budget int    // rounds left in the episode's budget from Round
	Turns  []dialogue.Turn
}

// readStates returns the distinct prefixes of the stored episodes of the
// units at the start of every round within the round budget turns that
// the episode reached: the opening (round 0), then the prefix after each
// round it played. A branching tree's nodes share prefixes, which count
// once. States are sorted by sample, round and key.
func readStates(ctx context.Context, env *runner.Env, units []string, turns int) ([]dstate, error) {
	seen := map[string]bool{}
	var out []dstate
	for _, fp := range units {
		eps, err := env.Store.EpisodesForUnit(ctx, fp)
		if err != nil {
			return nil, err
		}
		for _, ep := range eps {
			ts := make([]dialogue.Turn, len(ep.Turns))
			last := -1 // the last round with an agent turn
			for i, t := range ep.Turns {
				ts[i] = dialogueTurn(t)
				if ts[i].TurnType == dialogue.TurnAgent {
					last = max(last, ts[i].RoundID)
				}
			}
			for r := 0; r <= min(last+1, turns-1); r++ {
				// Everything before round r's agent turn: a user turn
				// that opened the conversation (round 0) belongs to
				// the prefix of round 0.
				n := 0
				for n < len(ts) && (ts[n].TurnType != dialogue.TurnAgent || ts[n].RoundID < r) {
					n++
				}
				st := dstate{Sample: ep.ConvID, Round: r, Budget: turns - r, Turns: ts[:n:n]}
				st.Key = stateKey(st)
				if !seen[st.Key] {
					seen[st.Key] = true
					out = append(out, st)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Sample != b.Sample {
			return a.Sample < b.Sample
		}
		if a.Round != b.Round {
			return a.Round < b.Round
		}
		return a.Key < b.Key
	})
	return out, nil
}

// stateKey names a state by its sample, round and a hash of its prefix.
func stateKey(st dstate) string {
	b, _ := json.Marshal(st.Turns) // turns always marshal
	h := sha256.Sum256(b)
	return fmt.Sprintf("%s/r%d/%s", st.Sample, st.Round, hex.EncodeToString(h[:6]))
}

// dialogueTurn is a stored turn as the dialogue engine recorded it.
func dialogueTurn(t results.Turn) dialogue.Turn {
	d := dialogue.Turn{TurnIdx: t.TurnIdx, TurnType: dialogue.TurnAgent, AgentName: t.AgentName, Response: t.Response}
	if t.RoundID != nil {
		d.RoundID = *t.RoundID
	}
	if t.TurnType == dialogue.TurnUser {
		d.TurnType = dialogue.TurnUser
		if raw, ok := t.Extra["emotion"]; ok {
			_ = json.Unmarshal(raw, &d.Emotion) // a string, as the episodes stage stores it
		}
		return d
	}
	if t.Directive != nil {
		d.Directive = &dialogue.Directive{AgentName: t.Directive.AgentName, Action: t.Directive.Action, Tone: t.Directive.Tone}
	}
	if t.DirectiveOutput != nil {
		d.DirectiveOutput = *t.DirectiveOutput
	}
	return d
}

// resultTurns are dialogue turns as the store keeps them, what
// stagekit.Transcript renders.
func resultTurns(ts []dialogue.Turn) []results.Turn {
	out := make([]results.Turn, len(ts))
	for i, t := range ts {
		round := t.RoundID
		out[i] = results.Turn{TurnIdx: t.TurnIdx, RoundID: &round, TurnType: t.TurnType, AgentName: t.AgentName, Response: t.Response}
	}
	return out
}

// splitStates holds out the states of a fraction of the samples (at least
// one sample when frac > 0 and there are two or more), so that no
// conversation has states on both sides; the samples are shuffled with
// seed as splitHeldout shuffles prompts.
func splitStates(states []dstate, frac float64, seed uint64) (train, heldout []dstate) {
	var samples []string
	seen := map[string]bool{}
	for _, st := range states {
		if !seen[st.Sample] {
			seen[st.Sample] = true
			samples = append(samples, st.Sample)
		}
	}
	_, ho := splitHeldout(samples, frac, seed)
	held := map[string]bool{}
	for _, s := range ho {
		held[s] = true
	}
	for _, st := range states {
		if held[st.Sample] {
			heldout = append(heldout, st)
		} else {
			train = append(train, st)
		}
	}
	return train, heldout
}
