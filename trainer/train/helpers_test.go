package train

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/qwen3"
)

// charTok is a character tokenizer over a small alphabet, with EOS and PAD.
type charTok struct{}

const alphabet = "abcdefghijklmnopqrstuvwxyz .,!?:"

func (charTok) Encode(s string) []int {
	var ids []int
	for _, r := range s {
		if i := strings.IndexRune(alphabet, r); i >= 0 {
			ids = append(ids, i)
		}
	}
	return ids
}

func (charTok) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id < len(alphabet) {
			b.WriteByte(alphabet[id])
		}
	}
	return b.String()
}

func (charTok) EOS() int { return 32 }
func (charTok) Pad() int { return 33 }

func tinyCfg() qwen3.Config {
	return qwen3.Config{Architectures: []string{qwen3.CausalLM}, ModelType: "qwen3", VocabSize: 40,
		HiddenSize: 32, IntermediateSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, HeadDim: 8, HiddenAct: "silu", MaxPositionEmbeddings: 256,
		RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true, EOSTokenID: 32}
}

var (
	pretrainedOnce sync.Once
	pretrained     *qwen3.Model
	pretrainedErr  error
)

// pretrainedBase returns a tiny model pretrained once on corpus, the base
// the SFT, DPO and GRPO learning tests adapt.
func pretrainedBase(t *testing.T) *qwen3.Model {
	t.Helper()
	pretrainedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mascot-train-base")
		if err != nil {
			pretrainedErr = err
			return
		}
		defer os.RemoveAll(dir)
		res, err := Pretrain(context.Background(), PretrainJob{
			Options: Options{Steps: 40, BatchSize: 8, Optim: optim.Config{LR: 1e-2, WarmupSteps: 2}, Seed: 1, OutputDir: dir},
			Config:  tinyCfg(), Tokenizer: charTok{}, Texts: corpus, SeqLen: 24,
		})
		if err != nil {
			pretrainedErr = err
			return
		}
		pretrained, pretrainedErr = qwen3.Load(res.Dir)
	})
	if pretrainedErr != nil {
		t.Fatal(pretrainedErr)
	}
	return pretrained
}
