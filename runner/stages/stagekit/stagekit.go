package stagekit

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/schema"
)

// EmbedPrefix marks a path inside the binary's embedded experiments
// ("embed:demo/data/esconv.json"), so the demo runs from any directory.
const EmbedPrefix = "embed:"

// ReadFileIn reads a path the config of env names: an embed: path, or a
// local one (through env.LocalPath).
func ReadFileIn(env *runner.Env, path string) ([]byte, error) {
	if !strings.HasPrefix(path, EmbedPrefix) {
		path = env.LocalPath(path)
	}
	return ReadFile(path)
}

// ReadFile reads a local path or an embed: path.
func ReadFile(path string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(path, EmbedPrefix); ok {
		return fs.ReadFile(experiments.Files, rest)
	}
	return os.ReadFile(path)
}

// LoadDataset loads the experiment dataset named name, without the samples
// of the datasets it excludes. An evaluation dataset that shares a sample
// with a training dataset it does not exclude is an error: validation
// catches the same file and split; this catches what only the files show
// (one file given for both splits).
func LoadDataset(env *runner.Env, name string) ([]datasets.Sample, error) {
	samples, err := loadDataset(env, name, map[string]bool{})
	if err != nil {
		return nil, err
	}
	train, eval := schema.DatasetUse(env.Exp)
	if _, ok := eval[name]; !ok {
		return samples, nil
	}
	ids := make(map[string]bool, len(samples))
	for _, s := range samples {
		ids[s.ID] = true
	}
	for _, tr := range slices.Sorted(maps.Keys(train)) {
		stage := train[tr]
		if tr == name || schema.Excludes(env.Exp, name, tr) {
			continue
		}
		other, err := loadDataset(env, tr, map[string]bool{})
		if err != nil {
			return nil, fmt.Errorf("loading training dataset %s to check dataset %s against it: %w", tr, name, err)
		}
		var shared []string
		for _, s := range other {
			if ids[s.ID] {
				shared = append(shared, s.ID)
			}
		}
		if len(shared) > 0 {
			return nil, fmt.Errorf("evaluation dataset %s holds %d of the samples training dataset %s (stage %s) reads, e.g. %s: "+
				"give each its own split, or set exclude: [%q] on %s", name, len(shared), tr, stage, shared[0], tr, name)
		}
	}
	return samples, nil
}

func loadDataset(env *runner.Env, name string, loading map[string]bool) ([]datasets.Sample, error) {
	d, ok := env.Exp.Datasets[name]
	if !ok {
		return nil, fmt.Errorf("unknown dataset %q", name)
	}
	if loading[name] {
		return nil, fmt.Errorf("dataset %s excludes itself through %v", name, d.Exclude)
	}
	loading[name] = true
	defer delete(loading, name)
	spec := datasets.Spec{Name: d.Name, Path: d.Path, HF: d.HFID, Split: d.Split, Limit: d.Limit,
		Seed: int64(d.Seed), Filters: datasets.Filters{Valence: d.Filters.Valence, Domain: d.Filters.Domain,
			Emotion: d.Filters.Emotion}}
	for _, x := range d.Exclude {
		other, err := loadDataset(env, x, loading)
		if err != nil {
			return nil, fmt.Errorf("loading dataset %s excluded from %s: %w", x, name, err)
		}
		for _, s := range other {
			spec.ExcludeIDs = append(spec.ExcludeIDs, s.ID)
		}
	}
	var samples []datasets.Sample
	var err error
	if rest, ok := strings.CutPrefix(d.Path, EmbedPrefix); ok {
		spec.Path = rest
		samples, err = datasets.LoadFS(experiments.Files, spec)
	} else {
		spec.Path = env.LocalPath(d.Path)
		samples, err = datasets.Load(spec)
	}
	if err != nil {
		return nil, fmt.Errorf("loading dataset %s: %w", name, err)
	}
	return samples, nil
}

// Roster converts the experiment roster named name.
func Roster(env *runner.Env, name string) (dialogue.Roster, error) {
	r, ok := env.Exp.Rosters[name]
	if !ok {
		return nil, fmt.Errorf("unknown roster %q", name)
	}
	out := make(dialogue.Roster, len(r.Agents))
	for i, a := range r.Agents {
		out[i] = dialogue.Agent{Name: a.Name, Role: a.Role, Description: a.Description, Style: a.Style,
			Goals: a.Goals, PromptTemplate: a.Template}
	}
	return out, nil
}

// Templates returns the dialogue templates with the roster's overrides.
func Templates(env *runner.Env, roster string) dialogue.Templates {
	t := dialogue.DefaultTemplates()
	r := env.Exp.Rosters[roster]
	if r.DirectorTemplate != "" {
		t.DirectorSystem = r.DirectorTemplate
	}
	if r.SpeakerTemplate != "" {
		t.SpeakerSystem = r.SpeakerTemplate
	}
	return t
}

// Router sends each dialogue role to the endpoint a stage names for it.
type Router struct {
	Client *llm.Client
	Roles  map[string]string // dialogue role -> endpoint name
}

// Chat implements dialogue.Chatter.
func (r Router) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if r.Client == nil {
		return llm.Response{}, fmt.Errorf("no LLM endpoints are configured")
	}
	if ep, ok := r.Roles[req.Role]; ok {
		req.Endpoint = ep // the role stays, to label counters and traces
	}
	return r.Client.Chat(ctx, req)
}

// Sampling converts schema sampling to dialogue sampling (explicit values,
// so temperature 0 is really sent).
func Sampling(s schema.Sampling) dialogue.Sampling {
	t, p, k := s.Temperature, s.TopP, s.TopK
	d := dialogue.Sampling{Temperature: &t, TopP: &p, TopK: &k, MaxTokens: s.MaxTokens}
	if n := s.TruncatePromptTokens; n != 0 {
		d.TruncatePromptTokens = &n
	}
	return d
}

// ModelID is the model an endpoint serves.
func ModelID(env *runner.Env, endpoint string) string {
	return env.Exp.Endpoints[endpoint].Model
}

// CountDialogue adds dialogue counters to the counters of the unit ctx
// runs (committed with it).
func CountDialogue(ctx context.Context, env *runner.Env, stage string, c dialogue.Counters) {
	env.CountIn(ctx, stage, "num_generation_failures", int64(c.NumGenerationFailures))
	env.CountIn(ctx, stage, "num_directive_parse_failures", int64(c.NumDirectiveParseFailures))
	env.CountIn(ctx, stage, "num_random_agent_fallbacks", int64(c.NumRandomAgentFallbacks))
	env.CountIn(ctx, stage, "num_empty_responses", int64(c.NumEmptyResponses))
	env.CountIn(ctx, stage, "num_skipped_samples", int64(c.NumSkippedSamples))
}

// CheckText reports, without reading more than it must, whether a text
// file the config names (an embed: path or a local one) exists and holds
// a line that is not blank.
func CheckText(env *runner.Env, path string) error {
	var r io.Reader
	if rest, ok := strings.CutPrefix(path, EmbedPrefix); ok {
		f, err := experiments.Files.Open(rest)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer f.Close()
		r = f
	} else {
		local := env.LocalPath(path)
		st, err := os.Stat(local)
		if err != nil {
			return fmt.Errorf("%s does not exist", local)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a file", local)
		}
		f, err := os.Open(local)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if strings.TrimSpace(string(buf[:n])) != "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s holds no line of text", path)
		}
	}
}
