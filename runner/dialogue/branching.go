package dialogue

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner/datasets"
)

// Tree is a branching episode: node 0 is the root (the opening state), and
// every other node is one round (Director directive -> Speaker -> optional
// user reply) continuing its parent. At a branch round a node has
// Branching.K children, one per candidate directive drawn from the same
// Director prompt; elsewhere it has one.
type Tree struct {
	ConvID         string         `json:"conv_id"`
	Metadata       Metadata       `json:"metadata"`
	MeetingFields  *MeetingFields `json:"meeting_fields,omitempty"`
	InitialEmotion string         `json:"initial_emotion,omitempty"`
	UserBigFive    *BigFive       `json:"user_big_five,omitempty"`
	UserMBTI       string         `json:"user_mbti,omitempty"`
	Nodes          []Node         `json:"nodes"`

	Counters Counters `json:"-"`
	Skipped  bool     `json:"-"`
	emotion  bool
}

// Node is one tree node.
type Node struct {
	ID       int    `json:"id"`
	Parent   int    `json:"parent"` // -1 for the root
	Children []int  `json:"children"`
	Path     string `json:"path"`     // "" for the root, then "0", "0.2", ...
	RoundID  int    `json:"round_id"` // -1 for the root
	Branch   int    `json:"branch"`   // index among its siblings

	Directive       *Directive `json:"directive,omitempty"`
	DirectiveOutput string     `json:"directive_output,omitempty"`
	// Turns are the turns this node added (agent turn and optional user
	// turn; the root holds a generated opening user turn, if any).
	Turns   []Turn `json:"turns"`
	Emotion string `json:"emotion,omitempty"` // the user's emotion after this node

	// DirectorPrompt is set on a node whose children were branched: the
	// prompt all K candidate directives were drawn from.
	DirectorPrompt []llm.Message `json:"director_prompt,omitempty"`
	// Drawn is the request and choice this node's directive came from.
	Drawn Draw `json:"-"`
}

// RunBranching grows a Tree of cfg.Turns rounds for sample s (systems
// mascot, mascot-p, mascot-c). cfg.Branching.K candidate directives are
// drawn at every round listed in cfg.Branching.Rounds (all rounds when
// nil), each continued to the end. Counters and strictness behave as in
// RunEpisode.
func RunBranching(ctx context.Context, ch Chatter, cfg Config, s datasets.Sample) (Tree, error) {
	if !IsDirected(cfg.System) {
		return Tree{}, fmt.Errorf("branching needs a directed system (mascot, mascot-p, mascot-c), got %q", cfg.System)
	}
	e, err := newEngine(ch, cfg, s)
	if err != nil {
		return Tree{}, err
	}
	if err := checkTreeSize(e.cfg); err != nil {
		return Tree{}, err
	}
	st, ok, err := e.open(ctx)
	ep := e.episode(st)
	t := Tree{ConvID: ep.ConvID, Metadata: ep.Metadata, MeetingFields: ep.MeetingFields, emotion: ep.EmotionFields != nil,
		Nodes: []Node{{ID: 0, Parent: -1, RoundID: -1, Turns: st.turns, Emotion: st.emotion}}}
	if ep.EmotionFields != nil {
		t.InitialEmotion, t.UserBigFive, t.UserMBTI = st.trajectory[0], e.big5, e.mbti
	}
	if err == nil && ok {
		err = e.grow(ctx, &t, 0, st, 0)
	}
	if err == nil && !ok {
		e.c.counters.NumSkippedSamples++
		t.Skipped = true
		if e.cfg.Strict {
			err = fmt.Errorf("running branching episode %s: %w", s.ID, ErrSkippedSample)
		}
	}
	t.Counters = *e.c.counters
	return t, err
}

// checkTreeSize refuses K, rounds or node counts outside the limits.
func checkTreeSize(cfg Config) error {
	b := cfg.Branching
	if b.K < 1 {
		return fmt.Errorf("branching.k must be at least 1, got %d", b.K)
	}
	for _, r := range b.Rounds {
		if r < 0 || r >= cfg.Turns {
			return fmt.Errorf("branching round %d is outside [0, %d)", r, cfg.Turns)
		}
	}
	nodes, width := 1, 1
	for r := range cfg.Turns {
		width *= branchK(cfg, r)
		nodes += width
		if nodes > b.MaxNodes {
			return fmt.Errorf("branching tree would exceed %d nodes (k=%d, %d rounds)", b.MaxNodes, b.K, cfg.Turns)
		}
	}
	return nil
}

// branchK is the number of children at round r.
func branchK(cfg Config, r int) int {
	if cfg.Branching.Rounds == nil || slices.Contains(cfg.Branching.Rounds, r) {
		return cfg.Branching.K
	}
	return 1
}

// grow expands node id (whose conversation is st) from round on, depth first.
func (e *engine) grow(ctx context.Context, t *Tree, id int, st *state, round int) error {
	if round >= e.cfg.Turns {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("growing branching episode: %w", err)
	}
	k := branchK(e.cfg, round)
	path := t.Nodes[id].Path
	dr, err := e.directives(ctx, st, round, path, k)
	if err != nil {
		return err
	}
	ds, raws := dr.ds, dr.raws
	if k > 1 {
		t.Nodes[id].DirectorPrompt = dr.prompt
	}
	for i := range k {
		child := st.clone()
		cpath := strconv.Itoa(i)
		if path != "" {
			cpath = path + "." + cpath
		}
		before := len(child.turns)
		spoke, err := e.speak(ctx, child, ds[i], raws[i], round, cpath)
		if err == nil && spoke {
			err = e.maybeUser(ctx, child, round, cpath)
		}
		d := ds[i]
		cid := len(t.Nodes)
		t.Nodes = append(t.Nodes, Node{ID: cid, Parent: id, Path: cpath, RoundID: round, Branch: i,
			Directive: &d, DirectiveOutput: raws[i], Turns: child.turns[before:], Emotion: child.emotion, Drawn: dr.from[i]})
		t.Nodes[id].Children = append(t.Nodes[id].Children, cid)
		if err != nil {
			return err
		}
		if err := e.grow(ctx, t, cid, child, round+1); err != nil {
			return err
		}
	}
	return nil
}
