package results

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// Held-out evaluations are read back per stage from the stage metrics and
// the training steps of the run's units (another run's are not listed),
// and GetRunDetail puts them under their stages.
func TestHeldoutUnderItsStage(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	commit := func(fp, stage, run string, f func(tx *Tx) error) {
		t.Helper()
		if err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "train", StageKey: stage, RunID: run}, f); err != nil {
			t.Fatal(err)
		}
	}
	f := func(v float64) *float64 { return &v }
	commit("rm", "persona_rm", "r", func(tx *Tx) error {
		if _, err := tx.InsertTrainingSteps([]TrainingStep{
			{StageKey: "persona_rm", Step: 1, Epoch: 0.5, Loss: f(0.7)},
			{StageKey: "persona_rm", Step: 2, Epoch: 1, Loss: f(0.6), Values: map[string]float64{"heldout_accuracy": 0.6, "heldout_loss": 0.65}},
			{StageKey: "persona_rm", Step: 4, Epoch: 2, Loss: f(0.3), Values: map[string]float64{"heldout_accuracy": 0.85, "heldout_loss": 0.4}},
		}); err != nil {
			return err
		}
		_, err := tx.InsertMetrics([]Metric{
			{System: "persona_rm", Name: MetricHeldoutAccuracy, Value: 0.85},
			{System: "persona_rm", Name: MetricHeldoutLoss, Value: 0.4},
			{System: "persona_rm", Name: MetricHeldoutPairs, Value: 20},
		})
		return err
	})
	commit("grpo", "speaker_grpo", "r", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{
			{System: "speaker_grpo", Name: MetricHeldoutRewardBefore, Value: 0.1},
			{System: "speaker_grpo", Name: MetricHeldoutRewardAfter, Value: 0.4},
			{System: "speaker_grpo", Name: MetricHeldoutDeltaCILow, Value: 0.05},
			{System: "speaker_grpo", Name: MetricHeldoutDeltaCIHigh, Value: 0.6},
			{System: "speaker_grpo", Name: MetricHeldoutPrompts, Value: 6},
			{System: "speaker_grpo", Name: "reward_mean", Value: 9}, // not a held-out metric
		})
		return err
	})
	commit("dpo", "dpo", "r", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{
			{System: "dpo", Name: MetricHeldoutAccuracyBefore, Value: 0},
			{System: "dpo", Name: MetricHeldoutAccuracy, Value: 0.75},
			{System: "dpo", Name: MetricHeldoutLossBefore, Value: 0.693},
			{System: "dpo", Name: MetricHeldoutLoss, Value: 0.5},
			{System: "dpo", Name: MetricHeldoutPairs, Value: 8},
		})
		return err
	})
	commit("pre", "pre", "r", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{
			{System: "pre", Name: MetricHeldoutLossBefore, Value: 5.5},
			{System: "pre", Name: MetricHeldoutLoss, Value: 2},
			{System: "pre", Name: MetricHeldoutExamples, Value: 3},
			{System: "pre", Name: MetricHeldoutTokens, Value: 189},
		})
		return err
	})
	commit("grpo-other", "director_grpo", "other", func(tx *Tx) error {
		_, err := tx.InsertMetrics([]Metric{{System: "director_grpo", Name: MetricHeldoutRewardBefore, Value: 0}})
		return err
	})
	got, err := s.Heldout(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*Heldout{
		"persona_rm": {Accuracy: f(0.85), Loss: f(0.4), Pairs: 20, Epochs: []HeldoutEpoch{
			{Step: 2, Epoch: 1, Accuracy: 0.6, Loss: 0.65}, {Step: 4, Epoch: 2, Accuracy: 0.85, Loss: 0.4}}},
		"speaker_grpo": {RewardBefore: f(0.1), RewardAfter: f(0.4), RewardDeltaCI: []float64{0.05, 0.6}, Prompts: 6},
		"dpo":          {AccuracyBefore: f(0), Accuracy: f(0.75), LossBefore: f(0.693), Loss: f(0.5), Pairs: 8},
		// perplexity: exp of a language model's loss, derived on reading
		"pre": {LossBefore: f(5.5), Loss: f(2), PerplexityBefore: f(math.Exp(5.5)), Perplexity: f(math.Exp(2)),
			Examples: 3, Tokens: 189},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Heldout(r):\ngot  %s\nwant %s", dump(got), dump(want))
	}

	for _, st := range []Stage{{RunID: "r", Key: "persona_rm", Kind: "train-reward-model"},
		{RunID: "r", Key: "speaker_grpo", Kind: "train-grpo"}, {RunID: "r", Key: "candidates", Kind: "candidates"},
		{RunID: "r", Key: "dpo", Kind: "train-dpo"}, {RunID: "r", Key: "pre", Kind: "pretrain"}} {
		if err := s.UpsertStage(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.GetRunDetail(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range d.Stages {
		if !reflect.DeepEqual(st.Heldout, want[st.Key]) {
			t.Errorf("run detail: stage %s held-out %s, want %s", st.Key, dump(st.Heldout), dump(want[st.Key]))
		}
	}
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
