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
	"mascot.dev/mascot/trainer/train"
)

// baseModel is a resolved base model: its directory and identity.
type baseModel struct {
	Dir string
	// ID is what goes into the unit's inputs: "stage:<sha256>" or the
	// base_model string.
	ID string
	// PeftName is adapter_config.json's base_model_name_or_path: the
	// Hugging Face id of a hub base, else the base's absolute directory
	// (AutoPeftModel resolves either); Revision is a hub base's "@rev".
	PeftName, Revision string
}

// describe names the base in o: base_model_name_or_path and revision for
// adapter_config.json, and the fingerprint for lora.MetaFile.
func (b baseModel) describe(o *train.Options) {
	o.BaseModelName, o.BaseRevision, o.BaseFingerprint = b.PeftName, b.Revision, b.ID
}

// localBase is a base read from dir, named by its absolute path.
func localBase(dir, id string) (baseModel, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return baseModel{}, fmt.Errorf("resolving base model directory: %w", err)
	}
	return baseModel{Dir: dir, ID: id, PeftName: abs}, nil
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
		return localBase(a.Path, "stage:"+a.SHA256)
	case ref.BaseModel != "":
		dir, err := findModel(ref.BaseModel)
		if err != nil {
			return baseModel{}, err
		}
		if dir == ref.BaseModel {
			return localBase(dir, ref.BaseModel)
		}
		name, rev, _ := strings.Cut(ref.BaseModel, "@")
		return baseModel{Dir: dir, ID: ref.BaseModel, PeftName: name, Revision: rev}, nil
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
