package episodes

import (
	"context"
	"fmt"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/runner/stages/stagekit"
)

// System reports the system the stage's episodes run.
func (s *stage) System() string { return s.cfg.System }

// Mode reports the stage's mode (independent, branching or eval).
func (s *stage) Mode() string { return s.cfg.Mode }

// ChatSetup prepares the stage's trained system for a live conversation
// (runner/chat): it resolves the stage's adapters and loads them into
// their endpoints, as a run of the stage does, and returns the dialogue
// config its units use, with the simulated user off. system, when set,
// replaces the stage's system; a system that is not directed (a baseline)
// then talks through the endpoints' base models, since the stage's
// adapters were trained for its own system. roster, when set, replaces the
// roster (and its prompt templates).
func (s *stage) ChatSetup(ctx context.Context, system, roster string) (dialogue.Config, dialogue.Chatter, error) {
	if _, err := s.Units(ctx); err != nil {
		return dialogue.Config{}, nil, fmt.Errorf("preparing stage %s: %w", s.key, err)
	}
	if err := s.loader.load(ctx, s.env, s.adapters); err != nil {
		return dialogue.Config{}, nil, err
	}
	if roster != "" {
		r, err := stagekit.Roster(s.env, roster)
		if err != nil {
			return dialogue.Config{}, nil, err
		}
		s.roster, s.tmpl = r, stagekit.Templates(s.env, roster)
	}
	cfg := s.dialogueConfig(runner.Unit{Key: "chat"}, datasets.Sample{Dataset: "chat"}, -1)
	cfg.UserSim = dialogue.UserConfig{}
	if system != "" && system != cfg.System {
		cfg.System = system
		if !dialogue.IsDirected(system) {
			cfg.Director.Model, cfg.Speaker.Model = "", ""
			cfg.Models = dialogue.ModelNames{Director: stagekit.ModelID(s.env, s.cfg.Director),
				Speaker: stagekit.ModelID(s.env, s.cfg.Speaker), User: stagekit.ModelID(s.env, s.cfg.User)}
		}
	}
	if dialogue.IsDirected(cfg.System) && len(cfg.Roster) == 0 {
		return dialogue.Config{}, nil, fmt.Errorf("system %s needs a roster; stage %s has none (pass --roster)", cfg.System, s.key)
	}
	if err := cfg.Validate(); err != nil {
		return dialogue.Config{}, nil, fmt.Errorf("configuring chat with stage %s: %w", s.key, err)
	}
	return cfg, s.router(), nil
}
