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
	// EvalTexts, when given, are held out: chunked as Texts are, scored
	// before the first step and after the last (Result.Eval "loss_before",
	// "loss": mean NLL per token; "examples": windows; "tokens").
	EvalTexts []string
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
	train := textWindows(job.Tokenizer, job.Texts, job.SeqLen)
	if len(train.rows) == 0 {
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
	return runNLL(ctx, "pretrain", o, m, job.Config, train, textWindows(job.Tokenizer, job.EvalTexts, job.SeqLen))
}

// textWindows cuts the texts, each followed by EOS, into one stream and
// that into windows of seqLen tokens (the tail shorter than a window is
// dropped; a stream shorter than one window but of two or more tokens is
// one row). Every position but a window's last predicts the next token.
func textWindows(tok Tokenizer, texts []string, seqLen int) nllSet {
	var stream []int
	for _, t := range texts {
		stream = append(append(stream, tok.Encode(t)...), tok.EOS())
	}
	var set nllSet
	for i := 0; i+seqLen <= len(stream); i += seqLen {
		set.rows = append(set.rows, stream[i:i+seqLen])
	}
	if len(set.rows) == 0 && len(stream) >= 2 {
		set.rows = append(set.rows, stream)
	}
	for _, r := range set.rows {
		mask := make([]float64, len(r))
		for t := 0; t < len(r)-1; t++ {
			mask[t] = 1
		}
		set.masks = append(set.masks, mask)
	}
	return set
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
	// EvalExamples, when given, are held out: their completions' mean NLL
	// per token is scored before the first step and after the last
	// (Result.Eval "loss_before", "loss", "examples", "tokens").
	EvalExamples []Example
}

// TrainSFT runs supervised fine-tuning; the output is a PEFT adapter with
// LoRA, else a full model directory.
func TrainSFT(ctx context.Context, job SFTJob) (Result, error) {
	o := job.Options.withDefaults()
	if (job.Base == nil && job.BaseDir == "") || len(job.Examples) == 0 {
		return Result{}, fmt.Errorf("training sft: a base model and examples are required")
	}
	train := completionRows(job.Tokenizer, job.Examples, o.MaxLength)
	if len(train.rows) == 0 {
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
	return runNLL(ctx, "sft", o, m, cfg, train, completionRows(job.Tokenizer, job.EvalExamples, o.MaxLength))
}

// completionRows tokenises examples as prompt then completion (with EOS),
// cut to maxLen tokens (0 = no cap), masking the positions that predict a
// completion token; an example with no prompt or under two tokens is
// dropped.
func completionRows(tok Tokenizer, exs []Example, maxLen int) nllSet {
	var set nllSet
	for _, ex := range exs {
		p := tok.Encode(ex.Prompt)
		c := withEOS(tok.Encode(ex.Completion), tok.EOS())
		ids := append(append([]int(nil), p...), c...)
		if maxLen > 0 && len(ids) > maxLen {
			ids = ids[:maxLen]
		}
		mask := make([]float64, len(ids))
		for t := max(len(p)-1, 0); t < len(ids)-1; t++ {
			mask[t] = 1 // position t predicts completion token t+1
		}
		if len(ids) < 2 || len(p) == 0 {
			continue
		}
		set.rows, set.masks = append(set.rows, ids), append(set.masks, mask)
	}
	return set
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
// The held-out set, when not empty, is scored before the session
// restores a checkpoint and after the last step.
func runNLL(ctx context.Context, kind string, o Options, m Network, cfg qwen3.Config, train, heldout nllSet) (Result, error) {
	eval := map[string]float64{}
	if err := nllEval(ctx, m, heldout, o.BatchSize, eval, "loss_before"); err != nil {
		return Result{}, fmt.Errorf("%s: %w", kind, err)
	}
	s, err := newSession(kind, o, m, cfg)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	rows, masks := train.rows, train.masks
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
	if len(eval) > 0 {
		if err := nllEval(ctx, m, heldout, o.BatchSize, eval, "loss"); err != nil {
			return s.res, fmt.Errorf("%s: %w", kind, err)
		}
		s.res.Eval = eval
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
