package train

import (
	"context"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// directorRollout builds two-turn episodes: a policy directive (trained),
// then a frozen speaker reply (not trained), then a second directive
// (trained). The reward is computed on the directives only. With
// trainNothing every flag stays false.
func directorRollout(trainNothing bool) RolloutFunc {
	tok := charTok{}
	speaker := tok.Encode(" ok, the dog sat.")
	return func(ctx context.Context, prompt string, n int, policy *Policy) ([]Episode, error) {
		ptoks := tok.Encode(prompt)
		first, err := policy.Sample(ctx, ptoks, n)
		if err != nil {
			return nil, err
		}
		eps := make([]Episode, n)
		for i := range eps {
			ids := append(append([]int(nil), ptoks...), first[i]...)
			tr := make([]bool, len(ids))
			for j := len(ptoks); j < len(ids); j++ {
				tr[j] = !trainNothing
			}
			ids = append(ids, speaker...)
			tr = append(tr, make([]bool, len(speaker))...)
			second, err := policy.Sample(ctx, ids, 1)
			if err != nil {
				return nil, err
			}
			start := len(ids)
			ids = append(ids, second[0]...)
			for range ids[start:] {
				tr = append(tr, !trainNothing)
			}
			r, _ := aShare(ctx, "", tok.Decode(first[i])+" "+tok.Decode(second[0]))
			eps[i] = Episode{IDs: ids, Trainable: tr, Completion: tok.Decode(first[i]), Reward: &r}
		}
		return eps, nil
	}
}

func TestGRPODirectorModeTrainsOnlyDirectives(t *testing.T) {
	job := func(steps int, trainNothing bool, sink *[]Metrics) GRPOJob {
		return GRPOJob{
			Options: Options{Steps: steps, BatchSize: 2, Seed: 6, Optim: optim.Config{LR: 2e-2},
				LoRA: &pass.LoRAConfig{R: 8, Alpha: 16}, OutputDir: filepath.Join(t.TempDir(), "director"),
				OnStep: func(m Metrics) { *sink = append(*sink, m) }},
			Base: pretrainedBase(t), Tokenizer: charTok{}, Prompts: []string{"the", "is the"},
			GroupSize: 8, Rollout: directorRollout(trainNothing), MaxCompletionTokens: 6,
		}
	}
	var none []Metrics
	if _, err := TrainGRPO(context.Background(), job(2, true, &none)); err != nil {
		t.Fatal(err)
	}
	for _, m := range none {
		if m.GradNorm != 0 || m.Loss != 0 {
			t.Errorf("with no trainable tokens step %d has grad norm %g, loss %g; want 0", m.Step, m.GradNorm, m.Loss)
		}
	}
	var ms []Metrics
	if _, err := TrainGRPO(context.Background(), job(20, false, &ms)); err != nil {
		t.Fatal(err)
	}
	var first, last []float64
	for i, m := range ms {
		if i < 4 {
			first = append(first, m.RewardMean)
		}
		if i >= len(ms)-4 {
			last = append(last, m.RewardMean)
		}
	}
	t.Logf("director reward %.3f → %.3f", mean(first), mean(last))
	if mean(last) < mean(first)+0.1 {
		t.Errorf("director-mode reward went %.3f → %.3f, want a rise of at least 0.1", mean(first), mean(last))
	}
}
