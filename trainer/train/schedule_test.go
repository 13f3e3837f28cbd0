package train

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
)

// The schedule is a function of the seed and the slot, and bucketing puts
// examples of similar lengths together: the mean length range within a
// batch is far below an unbucketed schedule's.
func TestScheduleBucketsByLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	lens := make([]int, 200)
	for i := range lens {
		lens[i] = 1 + rng.IntN(500)
	}
	length := func(i int) int { return lens[i] }
	s := &session{o: Options{BatchSize: 4, GradAccum: 2, Seed: 11}}
	again := &session{o: s.o}
	var spread, plain float64
	for slot := range 100 {
		b := s.pickAt(len(lens), slot, length)
		if !slices.Equal(b, again.pickAt(len(lens), slot, length)) {
			t.Fatalf("slot %d: two calls pick %v and %v", slot, b, again.pickAt(len(lens), slot, length))
		}
		ls := []int{lens[b[0]], lens[b[1]], lens[b[2]], lens[b[3]]}
		spread += float64(slices.Max(ls) - slices.Min(ls))
		u := s.pickAt(len(lens), slot, nil)
		ul := []int{lens[u[0]], lens[u[1]], lens[u[2]], lens[u[3]]}
		plain += float64(slices.Max(ul) - slices.Min(ul))
	}
	t.Logf("mean length range within a batch: %.1f bucketed, %.1f not", spread/100, plain/100)
	if spread > plain/4 {
		t.Errorf("bucketed batches span %.1f tokens on average, unbucketed %.1f: want at most a quarter", spread/100, plain/100)
	}
	other := &session{o: Options{BatchSize: 4, GradAccum: 2, Seed: 12}}
	if slices.Equal(s.pickAt(len(lens), 0, length), other.pickAt(len(lens), 0, length)) &&
		slices.Equal(s.pickAt(len(lens), 1, length), other.pickAt(len(lens), 1, length)) {
		t.Error("another seed picks the same batches")
	}
}

// Every reward-model batch is padded to its own longest pair, not to the
// longest pair of the dataset: with one long pair among short ones, most
// steps process far fewer tokens than the long pair would pad them to.
func TestRewardBatchesPadToTheirOwnRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	pairs := syntheticPairs(rng, 16)
	long := strings.Repeat("the cat sat on the mat. ", 4)
	pairs[5].Chosen, pairs[5].Rejected = long+"good.", long+"bad."
	var tokens []int
	_, err := TrainRewardModel(context.Background(), RMJob{
		Options: Options{Steps: 8, BatchSize: 2, Seed: 3, Optim: optim.Config{LR: 1e-3},
			LoRA: &pass.LoRAConfig{R: 2, Alpha: 4}, OutputDir: filepath.Join(t.TempDir(), "rm"),
			OnStep: func(m Metrics) { tokens = append(tokens, m.Tokens) }},
		Base: pretrainedBase(t), Tokenizer: charTok{}, Pairs: pairs,
	})
	if err != nil {
		t.Fatal(err)
	}
	longLen := len(charTok{}.Encode(pairs[5].Prompt + long + "good.")) // the longest pair's tokens
	full := 2 * 2 * 2 * longLen                                        // 2 rows per pair, 2 pairs, fwd+bwd
	short := 0
	for _, n := range tokens {
		if n < full/2 {
			short++
		}
	}
	t.Logf("tokens per step %v; padded to the longest pair: %d", tokens, full)
	if short < len(tokens)/2 {
		t.Errorf("only %d of %d steps processed under half the longest pair's padding (%d)", short, len(tokens), full)
	}
}
