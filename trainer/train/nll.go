package train

import (
	"context"
	"fmt"

	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// PretrainJob trains a fresh model (qwen3.NewRandom(Config, Seed)) on
// next-token prediction over Texts. LoRA must be nil.
type PretrainJob struct {
	Options
	Config    qwen3.Config
	Tokenizer Tokenizer
	Texts     []string
	// SeqLen is the chunk length in tokens (default 64).
	SeqLen int
}

// Pretrain trains a tiny base model from text (the demo's base) and saves
// it as a model directory.
func Pretrain(ctx context.Context, job PretrainJob) (Result, error) {
	o := job.Options.withDefaults()
	if o.LoRA != nil {
		return Result{}, fmt.Errorf("pretraining: LoRA makes no sense for a fresh model")
	}
	if job.SeqLen <= 0 {
		job.SeqLen = 64
	}
	var stream []int
	for _, t := range job.Texts {
		stream = append(append(stream, job.Tokenizer.Encode(t)...), job.Tokenizer.EOS())
	}
	var rows [][]int
	for i := 0; i+job.SeqLen <= len(stream); i += job.SeqLen {
		rows = append(rows, stream[i:i+job.SeqLen])
	}
	if len(rows) == 0 && len(stream) >= 2 {
		rows = append(rows, stream)
	}
	if len(rows) == 0 {
		return Result{}, fmt.Errorf("pretraining: the texts hold fewer than two tokens")
	}
	base, err := qwen3.NewRandom(job.Config, o.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("pretraining: %w", err)
	}
	m, err := newNetwork(o, baseSource{model: base}, pass.TrainAll, false)
	if err != nil {
		return Result{}, fmt.Errorf("pretraining: %w", err)
	}
	defer m.Close()
	masks := make([][]float64, len(rows))
	for i, r := range rows {
		masks[i] = make([]float64, len(r))
		for t := 0; t < len(r)-1; t++ {
			masks[i][t] = 1
		}
	}
	return runNLL(ctx, "pretrain", o, m, job.Config, rows, masks)
}

// SFTJob fine-tunes Base on prompt → completion examples with the
// cross-entropy of the completion tokens only.
type SFTJob struct {
	Options
	Base *qwen3.Model
	// BaseDir, read when Base is nil, is the base's checkpoint directory,
	// loaded straight onto the backend (BF16 stays BF16).
	BaseDir   string
	Tokenizer Tokenizer
	Examples  []Example
}

// TrainSFT runs supervised fine-tuning; the output is a PEFT adapter with
// LoRA, else a full model directory.
func TrainSFT(ctx context.Context, job SFTJob) (Result, error) {
	o := job.Options.withDefaults()
	if (job.Base == nil && job.BaseDir == "") || len(job.Examples) == 0 {
		return Result{}, fmt.Errorf("training sft: a base model and examples are required")
	}
	var rows [][]int
	var masks [][]float64
	for _, ex := range job.Examples {
		p := job.Tokenizer.Encode(ex.Prompt)
		c := withEOS(job.Tokenizer.Encode(ex.Completion), job.Tokenizer.EOS())
		ids := append(append([]int(nil), p...), c...)
		if o.MaxLength > 0 && len(ids) > o.MaxLength {
			ids = ids[:o.MaxLength]
		}
		mask := make([]float64, len(ids))
		for t := max(len(p)-1, 0); t < len(ids)-1; t++ {
			mask[t] = 1 // position t predicts completion token t+1
		}
		if len(ids) < 2 || len(p) == 0 {
			continue
		}
		rows, masks = append(rows, ids), append(masks, mask)
	}
	if len(rows) == 0 {
		return Result{}, fmt.Errorf("training sft: no example has both a prompt and a completion token within max length")
	}
	base := baseSource{job.Base, job.BaseDir}
	cfg, err := base.config()
	if err != nil {
		return Result{}, fmt.Errorf("training sft: %w", err)
	}
	m, err := newPolicy(base, o, false)
	if err != nil {
		return Result{}, fmt.Errorf("training sft: %w", err)
	}
	defer m.Close()
	return runNLL(ctx, "sft", o, m, cfg, rows, masks)
}

func withEOS(ids []int, eos int) []int {
	if len(ids) == 0 || ids[len(ids)-1] != eos {
		ids = append(ids, eos)
	}
	return ids
}

// runNLL is the masked next-token cross-entropy loop of Pretrain and SFT.
// Batches are bucketed by length and padded to their own longest row; the
// LM head runs from each row's first masked position on.
func runNLL(ctx context.Context, kind string, o Options, m Network, cfg qwen3.Config, rows [][]int, masks [][]float64) (Result, error) {
	s, err := newSession(kind, o, m, cfg)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	length := func(i int) int { return len(rows[i]) }
	for k := s.start; k < o.Steps; k++ {
		if err := s.begin(ctx); err != nil {
			return s.res, err
		}
		picks := make([][]int, o.GradAccum)
		var norm float64
		for j := range picks {
			picks[j] = s.pick(len(rows), k, j, length)
			for _, i := range picks[j] {
				for _, v := range masks[i] {
					norm += v
				}
			}
		}
		var met Metrics
		for j, idx := range picks {
			b := pass.Batch{}
			for _, i := range idx {
				b.IDs = append(b.IDs, rows[i])
			}
			T := b.Len()
			var mk [][]float64
			from := make([]int, len(idx))
			for r, i := range idx {
				mk = append(mk, pad(masks[i], T))
				from[r] = firstSet(masks[i])
			}
			seeds, err := loss.MaskedNLL(mk, mk, norm) // seeds are −mask/norm; logp unused here
			if err != nil {
				return s.res, err
			}
			ro := pass.RunOptions{Dropout: true, DropoutSeed: s.dropoutSeed(k, j), LogPFrom: from}
			out, err := m.Backward(ctx, b, ro, seeds.DLogP, nil)
			if err != nil {
				return s.res, fmt.Errorf("%s step %d: %w", kind, k+1, err)
			}
			l, err := loss.MaskedNLL(out.LogP, mk, norm)
			if err != nil {
				return s.res, err
			}
			met.Loss += l.Loss
			met.Tokens += len(idx) * T
		}
		if err := s.finish(k, met); err != nil {
			return s.res, err
		}
	}
	if err := s.writeOutput(); err != nil {
		return s.res, err
	}
	return s.res, nil
}

// firstSet is the first position with a nonzero mask (len(mask) if none).
func firstSet(mask []float64) int {
	for t, v := range mask {
		if v != 0 {
			return t
		}
	}
	return len(mask)
}

// pad extends v with zeros to length T.
func pad(v []float64, T int) []float64 {
	out := make([]float64, T)
	copy(out, v)
	return out
}
