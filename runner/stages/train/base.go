package train

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/hfhub"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

// baseModel is a resolved base model: its directory and identity.
type baseModel struct {
	Dir string
	// ID is what goes into the unit's inputs: "stage:<sha256>" or the
	// base_model string.
	ID string
}

// resolveBase finds the directory of a #ModelRef: the "model" artifact of
// base_stage, a local directory, or a hub id in the local HF hub cache.
func resolveBase(env *runner.Env, ref ModelRef) (baseModel, error) {
	switch {
	case ref.BaseStage != "":
		out, err := env.Output(ref.BaseStage)
		if err != nil {
			return baseModel{}, err
		}
		a, ok := artifactOf(out, "model")
		if !ok {
			return baseModel{}, fmt.Errorf("base stage %s recorded no model artifact", ref.BaseStage)
		}
		return baseModel{Dir: a.Path, ID: "stage:" + a.SHA256}, nil
	case ref.BaseModel != "":
		dir, err := findModel(ref.BaseModel)
		if err != nil {
			return baseModel{}, err
		}
		return baseModel{Dir: dir, ID: ref.BaseModel}, nil
	}
	return baseModel{}, fmt.Errorf("neither base_model nor base_stage is set")
}

// findModel returns a local model directory or the snapshot of a hub id.
func findModel(ref string) (string, error) {
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return ref, nil
	}
	name, rev, _ := strings.Cut(ref, "@")
	var looked []string
	for _, root := range hfhub.Roots() {
		repo := filepath.Join(root, "models--"+strings.ReplaceAll(name, "/", "--"))
		snaps := filepath.Join(repo, "snapshots")
		if rev == "" {
			if b, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
				if d := filepath.Join(snaps, strings.TrimSpace(string(b))); isModelDir(d) {
					return d, nil
				}
			}
		} else if d := filepath.Join(snaps, rev); isModelDir(d) {
			return d, nil
		}
		ents, _ := os.ReadDir(snaps)
		var dirs []string
		for _, e := range ents {
			if d := filepath.Join(snaps, e.Name()); (rev == "" || e.Name() == rev) && isModelDir(d) {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) > 0 {
			sort.Strings(dirs)
			return dirs[len(dirs)-1], nil
		}
		looked = append(looked, snaps)
	}
	return "", fmt.Errorf("base model %q is neither a local directory nor in the Hugging Face hub cache (looked in %s; download it with `huggingface-cli download %s`, or set HF_HOME / HF_HUB_CACHE)",
		ref, strings.Join(looked, ", "), name)
}

func isModelDir(d string) bool {
	_, err := os.Stat(filepath.Join(d, "config.json"))
	return err == nil
}

// loadBase loads the model and tokenizer of dir.
func loadBase(dir string) (*qwen3.Model, *tokenizer.Tokenizer, error) {
	m, err := qwen3.Load(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("loading base model: %w", err)
	}
	tok, err := serve.LoadTokenizer(dir)
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}

// tok adapts a tokenizer.Tokenizer to train.Tokenizer.
type tok struct{ *tokenizer.Tokenizer }

func (t tok) EOS() int { return t.Specials().EOS }
func (t tok) Pad() int {
	if p := t.Specials().Pad; p >= 0 {
		return p
	}
	return t.Specials().EOS
}
