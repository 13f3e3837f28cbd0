package train_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/train"
)

// TestDirectorGRPORollsOutWholeTrajectories: every GRPO group of the
// Director is G trajectories played by the Speaker (and the simulated
// user) through the episodes engine, horizon rounds each: the Speaker
// turns generated inside the stage are G × states × horizon, each one a
// Speaker request to the endpoint, and the Director's draws are counted
// as its requests.
func TestDirectorGRPORollsOutWholeTrajectories(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 1})
	const g, steps, batch, horizon = 2, 3, 2, 1
	l := directorSpec(t, srv.URL(), fmt.Sprintf("num_generations: %d, max_steps: %d, batch_size: %d, horizon: %d, heldout_fraction: 0",
		g, steps, batch, horizon))
	h := newHarness(t, l, runner.Default.WithStage("judge", "test", fakeJudge))
	h.run()
	want := int64(g * steps * batch * horizon)
	got := h.counter("dg", "rollout_speaker_turns")
	t.Logf("director_grpo: %d trajectories, %d speaker turns, %d user turns, %d director draws, %d speaker requests",
		h.counter("dg", "rollout_trajectories"), got, h.counter("dg", "rollout_user_turns"),
		h.counter("dg", "llm.director.requests"), h.counter("dg", "llm.speaker.requests"))
	if got == 0 || got != want {
		t.Fatalf("director_grpo generated %d Speaker turns, want G × states × horizon = %d", got, want)
	}
	if n := h.counter("dg", "llm.speaker.requests"); n != want {
		t.Errorf("director_grpo sent %d Speaker requests, want %d", n, want)
	}
	if n := h.counter("dg", "rollout_trajectories"); n != int64(g*steps*batch) {
		t.Errorf("%d trajectories, want %d", n, g*steps*batch)
	}
	// One Director request per state (n = G in one draw), counted with no
	// HTTP attempt: the policy samples in this process.
	if n, a := h.counter("dg", "llm.director.requests"), h.counter("dg", "llm.director.attempts"); n != int64(steps*batch) || a != 0 {
		t.Errorf("%d Director requests with %d attempts, want %d with 0", n, a, steps*batch)
	}
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg' AND reward IS NOT NULL`); n != steps {
		t.Errorf("%d rewarded GRPO steps, want %d", n, steps)
	}
	// Drawn under the directive schema, as the built-in engine would
	// draw them, the tiny policy's directives all parse.
	if n, f := h.counter("dg", "num_directive_parse_failures"), h.counter("dg", "num_random_agent_fallbacks"); n != 0 || f != 0 {
		t.Errorf("%d directives did not parse and %d fell back to a random agent, want none", n, f)
	}
	// The directive tokens the policy drew get gradient.
	if n := h.count(`SELECT COUNT(*) FROM training_steps WHERE stage_key = 'dg' AND grad_norm > 0`); n == 0 {
		t.Error("no GRPO step of the Director had a gradient")
	}
	if s := h.run(); s.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", s.Ran)
	}
}

// TestDirectorRewardUsesTheGroupPairTemplate: what the Director's GRPO
// rewards of a trajectory (prompt and text) is exactly what the group
// reward model was trained on for a conversation with the same turns: for
// every stored group block, the reward input of its episode's turns is
// one side of a training pair, with the pair's prompt.
func TestDirectorRewardUsesTheGroupPairTemplate(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{Seed: 2})
	l := directorSpec(t, srv.URL(), "num_generations: 2, max_steps: 1, batch_size: 1, heldout_fraction: 0.5")
	h := newHarness(t, l, runner.Default.WithStage("judge", "test", fakeJudge))
	h.run()
	ctx := context.Background()
	var units []string
	rows, err := h.store.Reader().Query(`SELECT fingerprint FROM units WHERE stage_key = 'gp' AND state = 'done'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var fp string
		rows.Scan(&fp)
		units = append(units, fp)
	}
	rows.Close()
	pairs, err := train.ReadPairs(ctx, h.store, units)
	if err != nil || len(pairs) == 0 {
		t.Fatalf("%d training pairs (%v)", len(pairs), err)
	}
	trained := map[[2]string]bool{}
	for _, p := range pairs {
		trained[[2]string{p.Prompt, p.Chosen}], trained[[2]string{p.Prompt, p.Rejected}] = true, true
	}
	rows, err = h.store.Reader().Query(`SELECT meta_json FROM candidates WHERE kind = 'block'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var meta string
		var m struct {
			EpisodeID int64 `json:"episode_id"`
		}
		if err := rows.Scan(&meta); err != nil || json.Unmarshal([]byte(meta), &m) != nil {
			t.Fatalf("block meta %q: %v", meta, err)
		}
		ep, err := h.store.GetEpisode(ctx, m.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		prompt, text, err := train.RewardInputOfStored(ep.Turns)
		if err != nil {
			t.Fatal(err)
		}
		if !trained[[2]string{prompt, text}] {
			t.Fatalf("the Director's reward scores episode %d as (%q, %q), which no training pair holds", m.EpisodeID, prompt, text)
		}
		n++
	}
	if n == 0 {
		t.Fatal("the pairs stage stored no group block")
	}
	// The held-out reward before and after was measured on trajectories.
	var before, after float64
	q := `SELECT value FROM metrics WHERE system = 'dg' AND name = ?`
	if err := h.store.Reader().QueryRow(q, "heldout_reward_before").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Reader().QueryRow(q, "heldout_reward_after").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if h.counter("dg", "heldout_speaker_turns") == 0 {
		t.Fatal("the held-out reward was measured without rolling out a Speaker turn")
	}
	t.Logf("held-out group reward %.4f → %.4f over %d held-out trajectories", before, after, h.counter("dg", "heldout_trajectories"))
}
