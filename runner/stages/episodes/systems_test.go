package episodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/schema"
)

const fakeSHA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeTrain stands in for a training stage: one unit recording an adapter
// artifact.
type fakeTrain struct{ dir string }

func (f fakeTrain) Units(context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "adapter", Inputs: "adapter"}}, nil
}

func (f fakeTrain) Run(context.Context, runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error {
		_, err := tx.InsertArtifact(results.Artifact{Kind: "adapter", Path: f.dir, SHA256: fakeSHA, Bytes: 1})
		return err
	}, nil
}

func TestEverySystemRuns(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	h := newHarness(t)
	dir := t.TempDir()
	h.reg = runner.Default.WithStage("train-sft", "test",
		func(*runner.Env, schema.Stage) (runner.Stage, error) { return fakeTrain{dir: dir}, nil })
	var stages strings.Builder
	// The (fake) SFT trains on other data than the systems are evaluated
	// on: validation refuses training and evaluation stages sharing a dataset.
	stages.WriteString(`sft_train: {kind: "train-sft", dataset: "qm", base_model: "Qwen/Qwen3-8B"}` + "\n")
	for _, sys := range dialogue.Systems() {
		extra := ""
		if sys == dialogue.SystemSFT {
			extra = `, sft_adapter: "sft_train"`
		}
		stages.WriteString(`"` + sys + `": {kind: "episodes", mode: "eval", dataset: "es", roster: "support", turns: 2,
			system: "` + sys + `", self_consistency_samples: 2, persona_set: "mbti", mbti_types: ["INFJ", "ESTP"]` + extra + "}\n")
	}
	sum := h.run(writeSpec(t, srv.URL(), "", stages.String()), false)
	for _, sys := range dialogue.Systems() {
		if n := h.count(`SELECT COUNT(*) FROM episodes WHERE system = ? AND mode = 'eval'`, sys); n != 3 {
			t.Errorf("system %s stored %d episodes, want 3", sys, n)
		}
		if n := h.count(`SELECT COUNT(*) FROM episodes e WHERE system = ? AND NOT EXISTS
			(SELECT 1 FROM turns t WHERE t.episode_id = e.id AND t.turn_type = 'agent')`, sys); n != 0 {
			t.Errorf("system %s: %d episodes without an agent turn", sys, n)
		}
	}
	alias := "sft-" + fakeSHA[:12]
	if got := srv.Adapters()[alias]; got != dir {
		t.Fatalf("adapter %s not loaded from %s (server has %v)", alias, dir, srv.Adapters())
	}
	if n := h.count(`SELECT COUNT(*) FROM episodes WHERE system = 'sft' AND json_extract(metadata_json, '$.speaker_model') = ?`,
		alias); n != 3 {
		t.Errorf("%d sft episodes name the adapter %s as speaker_model, want 3", n, alias)
	}
	for _, rec := range h.export(sum.RunID) {
		meta := rec["metadata"].(map[string]any)
		if meta["persona_set"] != "mbti" {
			t.Errorf("%v: persona_set %v, want mbti", meta["system"], meta["persona_set"])
		}
		if m := rec["user_mbti"]; m != "INFJ" && m != "ESTP" {
			t.Errorf("%v: user_mbti %v, want one of mbti_types", meta["system"], m)
		}
		if v, ok := rec["user_big_five"]; !ok || v != nil {
			t.Errorf("%v: user_big_five %v (present %v), want null", meta["system"], v, ok)
		}
	}
}

func TestBranchingStoresTheTree(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), "", `tree: {kind: "episodes", mode: "branching", dataset: "es", roster: "support",
		turns: 3, branch_k: 2, branch_depth: 2, user_response_probability: 0.5}`)
	sum := h.run(spec, false)
	if sum.Ran != 3 {
		t.Fatalf("ran %d units, want 3 (one tree per context)", sum.Ran)
	}
	// 1 root + 2 + 4 + 4 nodes per tree.
	if n := h.count(`SELECT COUNT(*) FROM episodes WHERE mode = 'branching'`); n != 33 {
		t.Fatalf("%d node episodes, want 33 (3 trees x 11 nodes)", n)
	}
	rows, err := h.store.Reader().Query(`SELECT id, unit_fp, idx, json_extract(metadata_json, '$.branch') FROM episodes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		unit string
		idx  int
		br   struct {
			Node, Parent    int
			ParentEpisodeID int64 `json:"parent_episode_id"`
			Path            string
			Children        []int
			Leaf            bool
		}
	}
	byID := map[int64]node{}
	var ids []int64
	for rows.Next() {
		var id int64
		var n node
		var raw string
		if err := rows.Scan(&id, &n.unit, &n.idx, &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(raw), &n.br); err != nil {
			t.Fatalf("episode %d branch link %q: %v", id, raw, err)
		}
		byID[id] = n
		ids = append(ids, id)
	}
	rows.Close()
	leaves, groups := 0, 0
	for _, id := range ids {
		n := byID[id]
		if n.br.Node != n.idx {
			t.Errorf("episode %d: node %d stored at idx %d", id, n.br.Node, n.idx)
		}
		if n.br.Leaf {
			leaves++
			if c := h.count(`SELECT COUNT(*) FROM turns WHERE episode_id = ? AND turn_type = 'agent'`, id); c != 3 {
				t.Errorf("leaf %d has %d agent turns, want 3", id, c)
			}
		}
		if len(n.br.Children) > 1 {
			groups++
			if c := h.count(`SELECT json_array_length(json_extract(metadata_json, '$.director_prompt')) FROM episodes WHERE id = ?`, id); c < 1 {
				t.Errorf("branch point %d stores no director prompt", id)
			}
		}
		if n.br.Parent < 0 {
			continue
		}
		p, ok := byID[n.br.ParentEpisodeID]
		if !ok || p.unit != n.unit || p.idx != n.br.Parent {
			t.Fatalf("episode %d: parent episode %d is not node %d of the same tree", id, n.br.ParentEpisodeID, n.br.Parent)
		}
		// The parent's turns are a prefix of the child's.
		if c := h.count(`SELECT COUNT(*) FROM turns p JOIN turns c ON c.episode_id = ? AND c.turn_idx = p.turn_idx
			WHERE p.episode_id = ? AND (c.response <> p.response OR c.agent_name <> p.agent_name)`, id, n.br.ParentEpisodeID); c != 0 {
			t.Errorf("episode %d differs from its parent in %d shared turns", id, c)
		}
		if !strings.HasPrefix(n.br.Path, p.br.Path) {
			t.Errorf("path %q does not extend parent path %q", n.br.Path, p.br.Path)
		}
	}
	if leaves != 12 || groups != 9 {
		t.Fatalf("%d leaves and %d branch points, want 12 and 9 (3 trees x (4 leaves, 1+2 branch points))", leaves, groups)
	}
	if again := h.run(spec, false); again.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", again.Ran)
	}
}
