package episodes

import (
	"context"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/runner/stages/stagekit"
)

// Setting is an episodes stage's conversation setting, for a stage that
// continues its stored conversations (the Director's GRPO rolls out from
// their prefixes): the same dataset samples, roster, prompts, simulated
// user, endpoints per role and served adapters the stage's own units use.
type Setting struct {
	s     *stage
	index map[string]int // sample id -> index into s.samples
}

// OpenSetting reads the setting of episodes stage key: its config, its
// dataset and the adapters it serves (resolved, not loaded yet).
func OpenSetting(env *runner.Env, key string) (*Setting, error) {
	st, ok := env.Exp.Stages[key]
	if !ok || st.Kind != "episodes" {
		return nil, fmt.Errorf("stage %s is not an episodes stage", key)
	}
	rs, err := New(env, st)
	if err != nil {
		return nil, err
	}
	s := rs.(*stage)
	if s.samples, err = stagekit.LoadDataset(env, s.cfg.Dataset); err != nil {
		return nil, err
	}
	if s.adapters, err = resolveAdapters(env, key, s.cfg); err != nil {
		return nil, err
	}
	set := &Setting{s: s, index: map[string]int{}}
	for i, smp := range s.samples {
		set.index[smp.ID] = i
	}
	return set, nil
}

// Turns is the stage's round budget.
func (t *Setting) Turns() int { return t.s.cfg.Turns }

// System is the stage's system (mascot, mascot-p or mascot-c for the
// stages a Director is trained on).
func (t *Setting) System() string { return t.s.cfg.System }

// Sample returns the dataset sample an episode's conv_id names.
func (t *Setting) Sample(id string) (datasets.Sample, bool) {
	i, ok := t.index[id]
	if !ok {
		return datasets.Sample{}, false
	}
	return t.s.samples[i], true
}

// Config is the dialogue config the stage's units use for smp, with
// unitKey as the prefix of request keys and seeds.
func (t *Setting) Config(unitKey string, smp datasets.Sample) dialogue.Config {
	return t.s.dialogueConfig(runner.Unit{Fingerprint: unitKey}, smp, t.index[smp.ID])
}

// DirectiveSchema is the JSON schema the stage's Director requests carry.
func (t *Setting) DirectiveSchema() json.RawMessage { return dialogue.DirectiveSchema(t.s.roster) }

// Router sends the dialogue roles to the stage's endpoints.
func (t *Setting) Router() stagekit.Router { return t.s.router() }

// Endpoint is the endpoint the stage names for a dialogue role.
func (t *Setting) Endpoint(role string) string {
	return t.s.router().Roles[role]
}

// LoadAdapters loads the adapters the stage serves (a trained Speaker's)
// into their endpoints; one already there is kept.
func (t *Setting) LoadAdapters(ctx context.Context) error {
	return t.s.loader.load(ctx, t.s.env, t.s.adapters)
}

// Identity is what the setting's conversations depend on beyond the
// stage's config, for the unit inputs of a stage that continues them: the
// served adapters (by hash) and the experiment seed.
func (t *Setting) Identity() map[string]any {
	return map[string]any{"adapters": t.s.adapters, "seed": t.s.env.Exp.Seed}
}
