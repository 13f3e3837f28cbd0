package episodes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"mascot.dev/mascot/llm"

	"mascot.dev/mascot/runner"
)

// adapter is one trained adapter the stage serves.
type adapter struct {
	Role     string `json:"role"`  // speaker | director | sft
	Stage    string `json:"stage"` // the training stage that produced it
	SHA256   string `json:"sha256"`
	Alias    string `json:"alias"`
	Endpoint string `json:"-"`
	Path     string `json:"-"`
}

// resolveAdapters resolves the configured adapter stages to their artifacts.
func resolveAdapters(env *runner.Env, key string, c Config) ([]adapter, error) {
	var out []adapter
	add := func(role, stage, endpoint string) error {
		if stage == "" {
			return nil
		}
		o, err := env.Output(stage)
		if err != nil {
			return fmt.Errorf("resolving %s_adapter: %w", role, err)
		}
		var a *adapter
		for _, art := range o.Artifacts {
			if art.Kind == "adapter" {
				a = &adapter{Role: role, Stage: stage, SHA256: art.SHA256, Path: art.Path, Endpoint: endpoint}
			}
		}
		if a == nil {
			return fmt.Errorf("resolving %s_adapter: stage %s recorded no adapter artifact", role, stage)
		}
		a.Alias = key + "-" + a.SHA256[:min(12, len(a.SHA256))]
		out = append(out, *a)
		return nil
	}
	if err := add("speaker", c.SpeakerAdapter, c.Speaker); err != nil {
		return nil, err
	}
	if err := add("director", c.DirectorAdapter, c.Director); err != nil {
		return nil, err
	}
	if err := add("sft", c.SFTAdapter, c.Speaker); err != nil {
		return nil, err
	}
	return out, nil
}

// loader loads the stage's adapters into their endpoints once.
type loader struct {
	once sync.Once
	err  error
}

func (l *loader) load(ctx context.Context, env *runner.Env, as []adapter) error {
	l.once.Do(func() {
		seen := map[string]bool{}
		for _, a := range as {
			if seen[a.Endpoint+"/"+a.Alias] {
				continue
			}
			seen[a.Endpoint+"/"+a.Alias] = true
			if env.LLM == nil {
				l.err = fmt.Errorf("loading adapter %s: no LLM endpoints are configured", a.Alias)
				return
			}
			if err := env.LLM.LoadAdapter(context.WithoutCancel(ctx), a.Endpoint, a.Alias, a.Path); err != nil && !errors.Is(err, llm.ErrAdapterExists) {
				l.err = fmt.Errorf("loading %s adapter of stage %s into endpoint %s: %w", a.Role, a.Stage, a.Endpoint, err)
				return
			}
		}
	})
	return l.err
}

// alias returns the alias of the adapter for role, or "".
func alias(as []adapter, role string) string {
	for _, a := range as {
		if a.Role == role {
			return a.Alias
		}
	}
	return ""
}
