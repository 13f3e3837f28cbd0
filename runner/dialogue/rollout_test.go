package dialogue

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestRolloutsFromTheRootReplayABranchingTree: rollouts from the opening
// state with the unit key of a branching episode that branches only at
// round 0 draw the same requests, so they are that tree's leaves.
func TestRolloutsFromTheRootReplayABranchingTree(t *testing.T) {
	for _, supportsN := range []bool{false, true} {
		cfg := esConfig(SystemMASCOT)
		cfg.Turns, cfg.SupportsN, cfg.UnitKey = 3, supportsN, "unit-a"
		cfg.Branching = BranchConfig{K: 2, Rounds: []int{0}}
		tree, err := RunBranching(context.Background(), &fakeChatter{reply: scripted(cfg.Roster)}, cfg, esSample())
		if err != nil {
			t.Fatal(err)
		}
		f := &fakeChatter{reply: scripted(cfg.Roster)}
		got, err := RunRollouts(context.Background(), f, cfg, esSample(), Prefix{}, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		leaves := tree.Leaves()
		if len(got.Rollouts) != len(leaves) {
			t.Fatalf("%d rollouts, want %d", len(got.Rollouts), len(leaves))
		}
		for i, r := range got.Rollouts {
			want := tree.Episode(leaves[i])
			if !reflect.DeepEqual(r.Episode.Turns, want.Turns) || !reflect.DeepEqual(r.Episode.EmotionFields, want.EmotionFields) {
				t.Fatalf("rollout %d differs from leaf %d:\n%+v\n%+v", i, leaves[i], r.Episode.Turns, want.Turns)
			}
		}
		if !reflect.DeepEqual(got.Prompt, tree.Nodes[0].DirectorPrompt) {
			t.Fatal("the rollouts' Director prompt is not the branch point's")
		}
	}
}

// TestRolloutsContinueAPrefix continues a stored prefix: every rollout
// starts with the prefix's turns, adds horizon agent turns from the
// prefix's round on, shows the prefix to the Speaker, and says which
// request and choice its first directive came from.
func TestRolloutsContinueAPrefix(t *testing.T) {
	cfg := esConfig(SystemMASCOT)
	cfg.Turns, cfg.UnitKey, cfg.Branching = 2, "unit-b", BranchConfig{K: 2, Rounds: []int{0}}
	tree, err := RunBranching(context.Background(), &fakeChatter{reply: scripted(cfg.Roster)}, cfg, esSample())
	if err != nil {
		t.Fatal(err)
	}
	prefix := tree.Episode(tree.Nodes[0].Children[0]).Turns // round 0 played
	for _, supportsN := range []bool{false, true} {
		cfg := cfg
		cfg.SupportsN, cfg.UnitKey = supportsN, "rollout-unit"
		f := &fakeChatter{reply: scripted(cfg.Roster)}
		const k, horizon = 3, 2
		got, err := RunRollouts(context.Background(), f, cfg, esSample(), Prefix{Turns: prefix, Round: 1}, k, horizon)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rollouts) != k || len(f.byRole(RoleSpeaker)) != k*horizon {
			t.Fatalf("%d rollouts and %d speaker requests, want %d and %d", len(got.Rollouts), len(f.byRole(RoleSpeaker)), k, k*horizon)
		}
		keys := map[string]bool{}
		for _, c := range f.byRole(RoleDirector) {
			keys[c.CacheKey] = true
		}
		for i, r := range got.Rollouts {
			turns := r.Episode.Turns
			if !reflect.DeepEqual(turns[:len(prefix)], prefix) {
				t.Fatalf("rollout %d does not start with the prefix", i)
			}
			var rounds []int
			for j, tr := range turns[len(prefix):] {
				if tr.TurnIdx != len(prefix)+j {
					t.Fatalf("rollout %d: turn %d has turn_idx %d", i, len(prefix)+j, tr.TurnIdx)
				}
				if tr.TurnType == TurnAgent {
					rounds = append(rounds, tr.RoundID)
				}
			}
			if !reflect.DeepEqual(rounds, []int{1, 2}) {
				t.Fatalf("rollout %d: agent turns in rounds %v, want [1 2]", i, rounds)
			}
			first := turns[len(prefix)]
			if first.DirectiveOutput != r.DirectiveOutput || *first.Directive != r.Directive {
				t.Fatalf("rollout %d: first turn %+v, directive %+v", i, first, r.Directive)
			}
			if !keys[r.Drawn.Key] || (!supportsN && r.Drawn.Choice != 0) || (supportsN && r.Drawn.Choice != i) {
				t.Fatalf("rollout %d: drawn %+v (keys %v)", i, r.Drawn, keys)
			}
		}
		sp := f.byRole(RoleSpeaker)[0].Messages[1].Content
		if !strings.Contains(sp, prefix[0].Response) {
			t.Fatalf("the Speaker's prompt lacks the prefix's turn %q:\n%s", prefix[0].Response, sp)
		}
		again, err := RunRollouts(context.Background(), &fakeChatter{reply: scripted(cfg.Roster)}, cfg, esSample(), Prefix{Turns: prefix, Round: 1}, k, horizon)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("a rerun differs (%v)", err)
		}
	}
	if _, err := RunRollouts(context.Background(), &fakeChatter{reply: scripted(cfg.Roster)}, cfg, esSample(), Prefix{}, 2, 0); err == nil {
		t.Fatal("horizon 0 accepted")
	}
}

// TestSeedKeySharesDrawsAcrossCacheKeys: two rollouts cached apart (their
// unit keys differ) with one seed key send the same seeds in the same
// order and face the same user coins.
func TestSeedKeySharesDrawsAcrossCacheKeys(t *testing.T) {
	run := func(unit string) *fakeChatter {
		cfg := esConfig(SystemMASCOT)
		cfg.UnitKey, cfg.SeedKey = unit, "shared"
		f := &fakeChatter{reply: scripted(cfg.Roster)}
		if _, err := RunRollouts(context.Background(), f, cfg, esSample(), Prefix{}, 2, 3); err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := run("before"), run("after")
	if len(a.calls) != len(b.calls) {
		t.Fatalf("%d and %d requests", len(a.calls), len(b.calls))
	}
	for i := range a.calls {
		x, y := a.calls[i], b.calls[i]
		if x.Role != y.Role || *x.Seed != *y.Seed || x.CacheKey == y.CacheKey {
			t.Fatalf("request %d: %s seed %d key %s vs %s seed %d key %s", i, x.Role, *x.Seed, x.CacheKey, y.Role, *y.Seed, y.CacheKey)
		}
	}
}
