package train

import (
	"context"
	"fmt"
	"strings"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// SFTConfig is #TrainSFT.
type SFTConfig struct {
	ModelRef
	Optim
	Dataset string `json:"dataset"`
	LoRA    LoRA   `json:"lora"`
	// HeldoutFraction of the samples' contexts are held out.
	HeldoutFraction float64 `json:"heldout_fraction"`
}

type sftStage struct {
	env *runner.Env
	key string
	cfg SFTConfig
}

func newSFT(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &sftStage{env: env, key: st.Key}
	return s, st.Decode(&s.cfg)
}

type sftPayload struct {
	examples []train.Example
	// contexts[i] names the context examples[i] comes from (sampleContext).
	contexts []string
	base     baseModel
}

func (s *sftStage) Units(ctx context.Context) ([]runner.Unit, error) {
	samples, err := stagekit.LoadDataset(s.env, s.cfg.Dataset)
	if err != nil {
		return nil, err
	}
	var exs []train.Example
	var ctxs []string
	for _, smp := range samples {
		e, err := examplesOf(smp)
		if err != nil {
			return nil, err
		}
		exs = append(exs, e...)
		for range e {
			ctxs = append(ctxs, sampleContext(smp))
		}
	}
	if len(exs) == 0 {
		return nil, fmt.Errorf("stage %s: dataset %s yields no training turns", s.key, s.cfg.Dataset)
	}
	base, err := resolveBase(s.env, s.cfg.ModelRef)
	if err != nil {
		return nil, err
	}
	return []runner.Unit{{Key: "train", Inputs: map[string]any{"examples": exs, "contexts": ctxs, "base": base.ID},
		Payload: sftPayload{examples: exs, contexts: ctxs, base: base}}}, nil
}

// sampleContext names the context a sample's examples are drawn from:
// the hash of its transcript or conversation (its query when it has
// none). Examples are held out by context, so the turns of one
// conversation and the queries about one transcript all fall on one
// side.
func sampleContext(smp datasets.Sample) string {
	var b strings.Builder
	for _, u := range smp.Context {
		fmt.Fprintf(&b, "%s: %s\n", u.Speaker, u.Text)
	}
	if b.Len() == 0 {
		b.WriteString("query\x00" + smp.Query)
	}
	return shortHash(b.String())
}

// splitExamples holds out frac of the contexts (seeded) with all their
// examples, then drops from the held-out side any example whose prompt
// is also a training prompt (two conversations may open alike), so no
// prompt is on both sides.
func splitExamples(exs []train.Example, contexts []string, frac float64, seed uint64) (tr, ho []train.Example) {
	tr, held := splitTexts(exs, contexts, frac, seed)
	seen := make(map[string]bool, len(tr))
	for _, e := range tr {
		seen[e.Prompt] = true
	}
	for _, e := range held {
		if !seen[e.Prompt] {
			ho = append(ho, e)
		}
	}
	return tr, ho
}

// examplesOf turns a sample into SFT examples: a query/answer item gives
// one (transcript and query → answer); a conversation gives one per turn of
// the helper (every speaker other than the one who opens it), with the
// earlier turns as the chat history.
func examplesOf(smp datasets.Sample) ([]train.Example, error) {
	if smp.Query != "" && smp.Answer != "" {
		var b strings.Builder
		for _, u := range smp.Context {
			fmt.Fprintf(&b, "%s: %s\n", u.Speaker, u.Text)
		}
		b.WriteString("\n" + smp.Query)
		p, err := tokenizer.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: b.String()}},
			tokenizer.TemplateOptions{AddGenerationPrompt: true})
		return []train.Example{{Prompt: p, Completion: smp.Answer}}, err
	}
	if len(smp.Context) < 2 {
		return nil, nil
	}
	seeker := smp.Context[0].Speaker
	var out []train.Example
	var hist []tokenizer.Message
	for _, u := range smp.Context {
		role := "user"
		if u.Speaker != seeker {
			role = "assistant"
		}
		if role == "assistant" && len(hist) > 0 {
			p, err := tokenizer.ApplyChatTemplate(hist, tokenizer.TemplateOptions{AddGenerationPrompt: true})
			if err != nil {
				return nil, err
			}
			out = append(out, train.Example{Prompt: p, Completion: u.Text})
		}
		hist = append(hist, tokenizer.Message{Role: role, Content: u.Text})
	}
	return out, nil
}

func (s *sftStage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.(sftPayload)
	base, tk, err := loadBase(p.base.Dir)
	if err != nil {
		return nil, err
	}
	dir, err := stageDir(s.env, s.key)
	if err != nil {
		return nil, err
	}
	examples, heldout := splitExamples(p.examples, p.contexts, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	opts := s.cfg.options(len(examples), s.env.Seed(s.key), dir, checkpointDir(s.env, u), &s.cfg.LoRA)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	defer release()
	p.base.describe(&opts)
	opts.OnStep = reportSteps(ctx, s.env, s.key, "train-sft", u, opts.Steps, 0)
	res, err := train.TrainSFT(ctx, train.SFTJob{Options: opts, Base: base, Tokenizer: tok{tk}, Examples: examples,
		EvalExamples: heldout})
	if err != nil {
		return nil, err
	}
	if err := doneTraining(opts.CheckpointDir); err != nil {
		return nil, err
	}
	s.env.Count(s.key, "num_train_examples", int64(len(examples)))
	s.env.Count(s.key, "num_heldout_examples", int64(len(heldout)))
	a := artifact("adapter", res, map[string]any{"base": p.base.ID, "base_dir": p.base.Dir,
		"train_examples": len(examples), "heldout_examples": len(heldout)})
	return commit(a, stepRows(s.key, res.History, 0), lmHeldoutMetrics(s.key, res.Eval)), nil
}
