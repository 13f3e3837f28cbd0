package train_test

import (
	"encoding/json"
	"testing"
)

// TestGRPOStageHonoursMaxLength: a train-grpo stage's max_length reaches
// the trainer: no trained sequence is longer (the stage used to clear it,
// so the trainer saw no limit and the candidates' prompts went in whole).
func TestGRPOStageHonoursMaxLength(t *testing.T) {
	const maxLen = 40
	l := writeSpec(t, `rewards: fmt: {kind: "conciseness", options: target_words: 1}
stages: `+candStage+`stages: pol: {kind: "train-grpo", policy: "speaker", prompts: "cand", rewards: ["fmt"], base_stage: "pre",
	num_generations: 2, max_steps: 2, batch_size: 2, max_completion_length: 8, max_length: 40,
	lora: {r: 8, alpha: 16, dropout: 0}}
`)
	h := newHarness(t, l, fakeRegistry())
	h.run()
	rows, err := h.store.Reader().Query(`SELECT values_json FROM training_steps WHERE stage_key = 'pol' ORDER BY step`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	steps, truncated := 0, 0.0
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			t.Fatal(err)
		}
		var v map[string]float64
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatal(err)
		}
		got, ok := v["sequence_length_max"]
		if !ok {
			t.Fatalf("step values lack sequence_length_max: %s", js)
		}
		if got > maxLen {
			t.Errorf("a trained sequence has %v tokens, max_length is %d", got, maxLen)
		}
		truncated += v["truncated_episodes"]
		steps++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if steps != 2 {
		t.Fatalf("%d steps recorded, want 2", steps)
	}
	t.Logf("%v episodes cut to %d tokens over %d steps", truncated, maxLen, steps)
}
