package train

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
	"mascot.dev/mascot/trainer/train"
)

// renderPrompt renders a stored prompt: a JSON list of chat messages goes
// through the Qwen3 chat template (generation prompt, no thinking); any
// other text is used as is.
func renderPrompt(stored string) (string, error) {
	if stored == "" {
		// Group pairs compare whole conversation blocks; they share no
		// prompt (stagekit.BlockPrompt).
		return stagekit.BlockPrompt, nil
	}
	var msgs []tokenizer.Message
	if err := json.Unmarshal([]byte(stored), &msgs); err != nil || len(msgs) == 0 {
		return stored, nil
	}
	s, err := tokenizer.ApplyChatTemplate(msgs, tokenizer.TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		return "", fmt.Errorf("rendering prompt: %w", err)
	}
	return s, nil
}

// upstreamUnits returns the done unit fingerprints of stage key, sorted.
func upstreamUnits(env *runner.Env, key string) ([]string, error) {
	out, err := env.Output(key)
	if err != nil {
		return nil, err
	}
	fps := append([]string(nil), out.Units...)
	sort.Strings(fps)
	return fps, nil
}

// readPairs reads the preference pairs of a pairs stage's units with the
// prompt and texts of the candidates they link: the stored rows and, in
// the same order, the pairs with rendered prompts.
func readPairs(ctx context.Context, env *runner.Env, units []string) ([]results.PairText, []train.Pair, error) {
	rows, err := env.Store.PairTexts(ctx, units)
	if err != nil {
		return nil, nil, err
	}
	var out []train.Pair
	for _, r := range rows {
		p := train.Pair{Chosen: r.Chosen, Rejected: r.Rejected, Margin: r.Margin}
		if p.Prompt, err = renderPrompt(r.Prompt); err != nil {
			return nil, nil, err
		}
		out = append(out, p)
	}
	return rows, out, nil
}

// pairSource is what the pair-trained stages share: the pairs stage's
// units and the base model.
func pairUnit(env *runner.Env, pairsStage string, ref ModelRef, extra map[string]any) (runner.Unit, error) {
	units, err := upstreamUnits(env, pairsStage)
	if err != nil {
		return runner.Unit{}, err
	}
	base, err := resolveBase(env, ref)
	if err != nil {
		return runner.Unit{}, err
	}
	in := map[string]any{"pairs_units": units, "base": base.ID}
	for k, v := range extra {
		in[k] = v
	}
	return runner.Unit{Key: "train", Inputs: in, Payload: pairPayload{units: units, base: base}}, nil
}

type pairPayload struct {
	units []string
	base  baseModel
}

// pairJob is what the pair-trained kinds (reward model, DPO) start from:
// the stored pairs, the base model's directory and tokenizer, and the
// stage's output directory. The base is not loaded here: the trainer reads
// it from baseDir straight onto its backend (a BF16 checkpoint stays
// BF16, with no float32 copy).
type pairJob struct {
	rows    []results.PairText // the stored rows of pairs (their queries)
	pairs   []train.Pair
	baseDir string
	tok     *tokenizer.Tokenizer
	dir     string
}

// loadPairJob reads the pairs of p's units (an empty pairs stage is an
// error naming it), loads the base's tokenizer and creates the output
// directory.
func loadPairJob(ctx context.Context, env *runner.Env, key, pairsStage string, p pairPayload) (pairJob, error) {
	var j pairJob
	var err error
	if j.rows, j.pairs, err = readPairs(ctx, env, p.units); err != nil {
		return j, err
	}
	if len(j.pairs) == 0 {
		return j, fmt.Errorf("stage %s: pairs stage %s holds no pairs", key, pairsStage)
	}
	if j.tok, err = serve.LoadTokenizer(p.base.Dir); err != nil {
		return j, err
	}
	j.baseDir = p.base.Dir
	j.dir, err = stageDir(env, key)
	return j, err
}
