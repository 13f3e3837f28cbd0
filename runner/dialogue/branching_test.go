package dialogue

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestBranchingTreeShape(t *testing.T) {
	cases := []struct {
		name      string
		k         int
		rounds    []int
		supportsN bool
		nodes     int
		leaves    int
		groups    int
	}{
		{"every round", 2, nil, false, 1 + 2 + 4 + 8, 8, 1 + 2 + 4},
		{"every round with n", 2, nil, true, 15, 8, 7},
		{"one branch point", 3, []int{1}, false, 1 + 1 + 3 + 3, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
			cfg := esConfig(SystemMASCOT)
			cfg.Turns, cfg.SupportsN = 3, c.supportsN
			cfg.Branching = BranchConfig{K: c.k, Rounds: c.rounds}
			tree, err := RunBranching(context.Background(), f, cfg, esSample())
			if err != nil {
				t.Fatal(err)
			}
			if len(tree.Nodes) != c.nodes || len(tree.Leaves()) != c.leaves || len(tree.BranchGroups()) != c.groups {
				t.Fatalf("nodes %d leaves %d groups %d", len(tree.Nodes), len(tree.Leaves()), len(tree.BranchGroups()))
			}
			for _, n := range tree.Nodes[1:] {
				p := tree.Nodes[n.Parent]
				if n.RoundID != p.RoundID+1 {
					t.Fatalf("node %d round %d under parent round %d", n.ID, n.RoundID, p.RoundID)
				}
				if p.Children[n.Branch] != n.ID {
					t.Fatalf("node %d is not child %d of %d", n.ID, n.Branch, p.ID)
				}
				wantPath := fmt.Sprint(n.Branch)
				if p.Path != "" {
					wantPath = p.Path + "." + wantPath
				}
				if n.Path != wantPath || n.Directive == nil || len(n.Turns) == 0 {
					t.Fatalf("node %d: path %q (want %q), turns %d", n.ID, n.Path, wantPath, len(n.Turns))
				}
				if n.Turns[0].AgentName != n.Directive.AgentName {
					t.Fatalf("node %d: speaker %q != directive %q", n.ID, n.Turns[0].AgentName, n.Directive.AgentName)
				}
			}
			for _, g := range tree.BranchGroups() {
				if len(g.Children) != c.k || len(g.Prompt) != 2 {
					t.Fatalf("group %+v", g)
				}
			}
			directorCalls := len(f.byRole("director"))
			wantCalls := 0
			for _, n := range tree.Nodes {
				if len(n.Children) > 0 {
					if c.supportsN || len(n.Children) == 1 {
						wantCalls++
					} else {
						wantCalls += len(n.Children)
					}
				}
			}
			if directorCalls != wantCalls {
				t.Fatalf("director calls %d, want %d", directorCalls, wantCalls)
			}
			for _, leaf := range tree.Leaves() {
				ep := tree.Episode(leaf)
				agents := 0
				for i, tr := range ep.Turns {
					if tr.TurnIdx != i {
						t.Fatalf("leaf %d: turn %d has turn_idx %d", leaf, i, tr.TurnIdx)
					}
					if tr.TurnType == TurnAgent {
						agents++
					}
				}
				if traj := trajectory(t, ep); agents != cfg.Turns || ep.InitialEmotion == nil || len(traj) != len(ep.Turns)-agents+1 {
					t.Fatalf("leaf %d: %d agent turns, emotions %v", leaf, agents, traj)
				}
				if err := checkSchema(ep, true); err != nil {
					t.Fatalf("leaf %d: %v", leaf, err)
				}
			}
		})
	}
}

func TestBranchingSiblingsDiffer(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	cfg.Turns, cfg.Branching = 2, BranchConfig{K: 4, Rounds: []int{0}}
	tree, err := RunBranching(context.Background(), f, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	g := tree.BranchGroups()[0]
	actions := map[string]bool{}
	keys := map[string]bool{}
	for _, c := range g.Children {
		actions[tree.Nodes[c].Directive.Action] = true
	}
	for _, c := range f.byRole("director") {
		keys[c.CacheKey] = true
	}
	if len(actions) < 2 || len(keys) != len(f.byRole("director")) {
		t.Fatalf("sibling directives not distinct draws: actions %v keys %d", actions, len(keys))
	}
	// The user coin depends on the round only: siblings agree on whether the user spoke.
	spoke := func(id int) bool { return len(tree.Nodes[id].Turns) == 2 }
	for _, c := range g.Children[1:] {
		if spoke(c) != spoke(g.Children[0]) {
			t.Fatalf("siblings saw different user coins")
		}
	}
}

func TestBranchingLimitsAndSystems(t *testing.T) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	cfg.Turns, cfg.Branching = 20, BranchConfig{K: 3}
	if _, err := RunBranching(context.Background(), f, cfg, esSample()); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Fatalf("huge tree accepted: %v", err)
	}
	cfg.Turns, cfg.Branching = 2, BranchConfig{K: 0}
	if _, err := RunBranching(context.Background(), f, cfg, esSample()); err == nil {
		t.Fatal("k=0 accepted")
	}
	cfg.Branching = BranchConfig{K: 2, Rounds: []int{5}}
	if _, err := RunBranching(context.Background(), f, cfg, esSample()); err == nil {
		t.Fatal("branch round outside the episode accepted")
	}
	cfg = esConfig(SystemZeroShot)
	cfg.Branching = BranchConfig{K: 2}
	if _, err := RunBranching(context.Background(), f, cfg, esSample()); err == nil {
		t.Fatal("baseline branching accepted")
	}
}

func TestBranchingDeterministic(t *testing.T) {
	run := func() Tree {
		f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
		cfg := esConfig(SystemMASCOTC)
		cfg.Turns, cfg.Branching = 3, BranchConfig{K: 2}
		tree, err := RunBranching(context.Background(), f, cfg, esSample())
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	if a, b := run(), run(); !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different trees")
	}
}
