package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// PretrainConfig is #Pretrain.
type PretrainConfig struct {
	Optim
	Text string `json:"text"`
	// HeldoutFraction of the text's distinct lines are held out.
	HeldoutFraction float64 `json:"heldout_fraction"`
	Model           struct {
		HiddenSize        int `json:"hidden_size"`
		IntermediateSize  int `json:"intermediate_size"`
		NumHiddenLayers   int `json:"num_hidden_layers"`
		NumAttentionHeads int `json:"num_attention_heads"`
		NumKeyValueHeads  int `json:"num_key_value_heads"`
		HeadDim           int `json:"head_dim"`
		// MaxPositionEmbeddings bounds prompt plus completion when the
		// model is served (byte-level prompts of judges are long).
		MaxPositionEmbeddings int `json:"max_position_embeddings"`
	} `json:"model"`
}

// pretrainPreflight adds to devicePreflight that the text exists and
// holds a line: a run must not train other stages first and then find it
// missing.
func pretrainPreflight(env *runner.Env, st schema.Stage) []runner.Problem {
	ps := devicePreflight(env, st)
	var c PretrainConfig
	if err := st.Decode(&c); err != nil {
		return ps
	}
	if err := stagekit.CheckText(env, c.Text); err != nil {
		ps = append(ps, runner.StageProblem(st, "text", fmt.Errorf("pretraining text: %w", err)))
	}
	return ps
}

type pretrain struct {
	env *runner.Env
	key string
	cfg PretrainConfig
}

func newPretrain(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &pretrain{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// modelConfig is the Qwen3 config of the tiny model over the byte-level
// vocabulary.
func (s *pretrain) modelConfig(maxLen int) qwen3.Config {
	m := s.cfg.Model
	bt := tokenizer.NewByteLevel().Specials()
	return qwen3.Config{Architectures: []string{qwen3.CausalLM}, ModelType: "qwen3",
		VocabSize: tokenizer.ByteLevelVocabSize, HiddenSize: m.HiddenSize, IntermediateSize: m.IntermediateSize,
		NumHiddenLayers: m.NumHiddenLayers, NumAttentionHeads: m.NumAttentionHeads,
		NumKeyValueHeads: m.NumKeyValueHeads, HeadDim: m.HeadDim, HiddenAct: "silu",
		MaxPositionEmbeddings: max(2048, maxLen, m.MaxPositionEmbeddings), RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true,
		BOSTokenID: bt.EndOfText, EOSTokenID: bt.EOS, TorchDtype: "float32"}
}

func (s *pretrain) Units(ctx context.Context) ([]runner.Unit, error) {
	b, err := stagekit.ReadFileIn(s.env, s.cfg.Text)
	if err != nil {
		return nil, fmt.Errorf("reading pretraining text: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("pretraining text %s has no lines", s.cfg.Text)
	}
	sum := sha256.Sum256(b)
	return []runner.Unit{{Key: "model", Inputs: map[string]any{"text_sha256": hex.EncodeToString(sum[:]), "tokenizer": "bytes"},
		Payload: lines}}, nil
}

func (s *pretrain) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	// Whole lines (documents) are held out, with the stage's seed; a line
	// that occurs twice is on one side.
	all := u.Payload.([]string)
	lines, heldout := splitTexts(all, all, s.cfg.HeldoutFraction, uint64(s.env.Seed(s.key)))
	dir, err := stageDir(s.env, s.key)
	if err != nil {
		return nil, err
	}
	seqLen := min(max(8, s.cfg.MaxLength), 256)
	opts := s.cfg.options(len(lines), s.env.Seed(s.key), dir, checkpointDir(s.env, u), nil)
	release, err := s.cfg.useDevice(&opts)
	if err != nil {
		return nil, err
	}
	defer release()
	opts.OnStep = reportSteps(ctx, s.env, s.key, "pretrain", u, opts.Steps, 0)
	bt := tokenizer.NewByteLevel()
	res, err := train.Pretrain(ctx, train.PretrainJob{Options: opts, Config: s.modelConfig(seqLen),
		Tokenizer: tok{bt}, Texts: lines, EvalTexts: heldout, SeqLen: seqLen})
	if err != nil {
		return nil, err
	}
	if err := doneTraining(opts.CheckpointDir); err != nil {
		return nil, err
	}
	if err := serve.WriteByteTokenizerMarker(res.Dir); err != nil {
		return nil, err
	}
	if err := addFile(res.Files, res.Dir, serve.MarkerFile); err != nil {
		return nil, err
	}
	s.env.Count(s.key, "num_train_lines", int64(len(lines)))
	s.env.Count(s.key, "num_heldout_lines", int64(len(heldout)))
	a := artifact("model", res, map[string]any{"tokenizer": "bytes", "train_lines": len(lines), "heldout_lines": len(heldout)})
	return commit(a, stepRows(s.key, res.History, 0), lmHeldoutMetrics(s.key, res.Eval)), nil
}
