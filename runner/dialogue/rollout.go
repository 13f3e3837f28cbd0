package dialogue

import (
	"context"
	"fmt"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/datasets"
)

// Prefix is a stored conversation to continue: the turns generated so far
// (as an episode of this engine recorded them, turn_idx from 0, user
// turns with the emotion the user stated) and the round the Director acts
// in next.
type Prefix struct {
	Turns []Turn
	Round int
}

// Rollout is one trajectory of RunRollouts.
type Rollout struct {
	// Episode holds the prefix's turns followed by the generated ones.
	Episode Episode
	// Directive is the first directive (drawn at the prefix) as resolved,
	// DirectiveOutput the Director's raw output and Drawn the request and
	// choice it came from.
	Directive       Directive
	DirectiveOutput string
	Drawn           Draw
}

// Rollouts are the trajectories RunRollouts grew from one prefix.
type Rollouts struct {
	// Prompt is the Director prompt at the prefix, the one every first
	// directive was drawn from.
	Prompt   []llm.Message
	Rollouts []Rollout
	Counters Counters
	// Skipped is true when the sample and prefix give no usable context
	// (nothing was generated).
	Skipped bool
}

// RunRollouts continues a stored prefix k times: k directives are drawn
// from the Director at the prefix, as at a branch point of RunBranching
// (one request with n = k when cfg.SupportsN, else k requests), and each
// is played for horizon rounds, the later rounds as RunEpisode plays them
// (Director -> Speaker -> the simulated user when the round's coin
// allows). cfg.Turns and cfg.Branching are ignored: the rollouts end after
// round prefix.Round + horizon − 1. Request keys and seeds derive from
// cfg.UnitKey and cfg.Seed as in RunBranching (the k first directives sit
// on branch paths "0" … "k−1"), so sibling rollouts face the same user
// coins. Counters and strictness behave as in RunBranching.
func RunRollouts(ctx context.Context, ch Chatter, cfg Config, s datasets.Sample, p Prefix, k, horizon int) (Rollouts, error) {
	switch {
	case !IsDirected(cfg.System):
		return Rollouts{}, fmt.Errorf("rollouts need a directed system (mascot, mascot-p, mascot-c), got %q", cfg.System)
	case k < 1 || horizon < 1 || p.Round < 0:
		return Rollouts{}, fmt.Errorf("rollouts need k ≥ 1, horizon ≥ 1 and round ≥ 0, got k=%d, horizon=%d, round=%d", k, horizon, p.Round)
	}
	cfg.Turns = p.Round + horizon
	cfg.Branching = BranchConfig{K: k, Rounds: []int{p.Round}}
	e, err := newEngine(ch, cfg, s)
	if err != nil {
		return Rollouts{}, err
	}
	st := e.resume(p)
	if len(st.history) == 0 {
		e.c.counters.NumSkippedSamples++
		out := Rollouts{Counters: *e.c.counters, Skipped: true}
		if e.cfg.Strict {
			return out, fmt.Errorf("rolling out %s: %w", s.ID, ErrSkippedSample)
		}
		return out, nil
	}
	var out Rollouts
	if out.Prompt, err = e.directorPrompt(st); err != nil {
		return out, err
	}
	ep := e.episode(st)
	t := Tree{ConvID: ep.ConvID, Metadata: ep.Metadata, MeetingFields: ep.MeetingFields, emotion: ep.EmotionFields != nil,
		Nodes: []Node{{ID: 0, Parent: -1, RoundID: p.Round - 1, Turns: st.turns, Emotion: st.emotion}}}
	if ep.EmotionFields != nil {
		t.InitialEmotion, t.UserBigFive, t.UserMBTI = st.trajectory[0], e.big5, e.mbti
	}
	err = e.grow(ctx, &t, 0, st, p.Round)
	out.Counters = *e.c.counters
	if err != nil {
		return out, fmt.Errorf("rolling out %s from round %d: %w", s.ID, p.Round, err)
	}
	for _, c := range t.Nodes[0].Children {
		leaf := c
		for len(t.Nodes[leaf].Children) > 0 {
			leaf = t.Nodes[leaf].Children[0]
		}
		n := t.Nodes[c]
		out.Rollouts = append(out.Rollouts, Rollout{Episode: t.Episode(leaf), Directive: *n.Directive,
			DirectiveOutput: n.DirectiveOutput, Drawn: n.Drawn})
	}
	return out, nil
}

// resume rebuilds the state of a stored prefix: the sample's context, then
// the prefix's turns (agent turns under their agent's name, user turns
// with the emotion the user stated).
func (e *engine) resume(p Prefix) *state {
	st := e.opening()
	for _, t := range p.Turns {
		name := t.AgentName
		if t.TurnType == TurnUser {
			name = "User"
			if t.Emotion != "" {
				st.emotion = t.Emotion
			}
			st.trajectory = append(st.trajectory, st.emotion)
		}
		st.add(t, name)
	}
	return st
}
