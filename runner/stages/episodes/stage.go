package episodes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
)

type stage struct {
	env      *runner.Env
	key      string
	cfg      Config
	roster   dialogue.Roster
	tmpl     dialogue.Templates
	adapters []adapter
	loader   loader
	samples  []datasets.Sample
	examples [][]dialogue.Example // per sample, for the example pools
}

// payload is what Run needs of a unit.
type payload struct {
	index     int // into stage.samples
	sampleIdx int
}

// New builds the stage from its config.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.cfg = s.cfg.withDefaults()
	if err := s.cfg.validate(); err != nil {
		return nil, fmt.Errorf("configuring stage %s: %w", st.Key, err)
	}
	if dialogue.IsDirected(s.cfg.System) || s.cfg.Roster != "" {
		var err error
		if s.roster, err = stagekit.Roster(env, s.cfg.Roster); err != nil {
			return nil, err
		}
		s.tmpl = stagekit.Templates(env, s.cfg.Roster)
	} else {
		s.tmpl = dialogue.DefaultTemplates()
	}
	return s, nil
}

func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	samples, err := stagekit.LoadDataset(s.env, s.cfg.Dataset)
	if err != nil {
		return nil, err
	}
	if s.adapters, err = resolveAdapters(s.env, s.key, s.cfg); err != nil {
		return nil, err
	}
	s.samples = samples
	var poolIDs string
	if needsExamples(s.cfg.System) {
		s.examples = make([][]dialogue.Example, len(samples))
		h := sha256.New()
		for i, smp := range samples {
			s.examples[i] = dialogue.ExamplesFromSamples([]datasets.Sample{smp})
			fmt.Fprintf(h, "%s\x00", smp.ID)
		}
		poolIDs = hex.EncodeToString(h.Sum(nil))
	}
	n := s.cfg.SamplesPerContext
	if s.cfg.Mode == ModeBranching {
		n = 1
	}
	var units []runner.Unit
	for i, smp := range samples {
		ctxHash, err := json.Marshal(smp)
		if err != nil {
			return nil, fmt.Errorf("encoding sample %s: %w", smp.ID, err)
		}
		sum := sha256.Sum256(ctxHash)
		for k := range n {
			in := map[string]any{"sample": smp.ID, "sample_idx": k, "sample_sha256": hex.EncodeToString(sum[:]),
				"seed": s.env.Exp.Seed, "adapters": s.adapters}
			if poolIDs != "" {
				in["example_pool"] = poolIDs
			}
			units = append(units, runner.Unit{Key: fmt.Sprintf("%s/s%d", smp.ID, k), Inputs: in,
				Payload: payload{index: i, sampleIdx: k}, Context: smp.ID})
		}
	}
	return units, nil
}

// dialogueConfig builds the engine config of one unit.
func (s *stage) dialogueConfig(u runner.Unit, smp datasets.Sample, index int) dialogue.Config {
	c := s.cfg
	sp := stagekit.Sampling(c.Sampling)
	dir, spk, usr := sp, sp, sp
	if c.DirectorSampling != nil {
		dir = stagekit.Sampling(*c.DirectorSampling)
	}
	dir.Model, spk.Model = alias(s.adapters, "director"), alias(s.adapters, "speaker")
	models := dialogue.ModelNames{Director: stagekit.ModelID(s.env, c.Director),
		Speaker: stagekit.ModelID(s.env, c.Speaker), User: stagekit.ModelID(s.env, c.User)}
	if dir.Model != "" {
		models.Director = dir.Model
	}
	if spk.Model != "" {
		models.Speaker = spk.Model
	}
	ep := s.env.Exp.Endpoints[c.Speaker]
	cfg := dialogue.Config{
		System: c.System, Roster: s.roster, Turns: c.Turns, ContextTurns: contextTurns(smp),
		Seed: s.env.Seed(s.key), UnitKey: u.Fingerprint, Strict: s.env.Strict, SupportsN: ep.SupportsN,
		Director: dir, Speaker: spk, User: usr, Models: models, UserSim: c.userFor(int64(s.env.Exp.Seed), smp),
		Templates: s.tmpl,
		Baseline: dialogue.BaselineConfig{FewShotK: c.FewShotExamples, SelfConsistencyN: c.SelfConsistencySamples,
			SFTModel: alias(s.adapters, "sft")},
		Branching: dialogue.BranchConfig{K: c.BranchK, Rounds: c.branchRounds()},
	}
	if s.examples != nil {
		var ex []dialogue.Example
		for j, e := range s.examples {
			if j != index && !sameMeeting(smp, s.samples[j]) {
				ex = append(ex, e...)
			}
		}
		cfg.Baseline.Examples = dialogue.NewExamplePool(ex)
	}
	return cfg
}

// router sends the dialogue roles to the stage's endpoints.
func (s *stage) router() stagekit.Router {
	return stagekit.Router{Client: s.env.LLM, Roles: map[string]string{
		dialogue.RoleDirector: s.cfg.Director, dialogue.RoleSpeaker: s.cfg.Speaker, dialogue.RoleUser: s.cfg.User}}
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	p := u.Payload.(payload)
	if err := s.loader.load(ctx, s.env, s.adapters); err != nil {
		return nil, err
	}
	smp := s.samples[p.index]
	cfg := s.dialogueConfig(u, smp, p.index)
	if s.cfg.Mode == ModeBranching {
		return s.runBranching(ctx, u, cfg, smp)
	}
	ep, err := dialogue.RunEpisode(ctx, s.router(), cfg, smp)
	stagekit.CountDialogue(ctx, s.env, s.key, ep.Counters)
	if err != nil {
		return nil, err
	}
	if ep.Skipped {
		return func(*results.Tx) error { return nil }, nil
	}
	row, err := toRow(ep, smp, s.cfg.Mode, p.sampleIdx)
	if err != nil {
		return nil, err
	}
	s.env.CountIn(ctx, s.key, "num_episodes", 1)
	s.env.CountIn(ctx, s.key, "num_turns", int64(len(row.Turns)))
	return func(tx *results.Tx) error {
		_, err := tx.InsertEpisode(row)
		return err
	}, nil
}

// runBranching grows one tree and stores every node as an episode holding
// its root-to-node trajectory, linked to its parent in the metadata.
func (s *stage) runBranching(ctx context.Context, u runner.Unit, cfg dialogue.Config, smp datasets.Sample) (runner.Commit, error) {
	tree, err := dialogue.RunBranching(ctx, s.router(), cfg, smp)
	stagekit.CountDialogue(ctx, s.env, s.key, tree.Counters)
	if err != nil {
		return nil, err
	}
	if tree.Skipped {
		return func(*results.Tx) error { return nil }, nil
	}
	rows := make([]results.Episode, len(tree.Nodes))
	for i, n := range tree.Nodes {
		row, err := toRow(tree.Episode(n.ID), smp, ModeBranching, 0)
		if err != nil {
			return nil, err
		}
		row.Idx = n.ID
		rows[i] = row
	}
	s.env.CountIn(ctx, s.key, "num_episodes", int64(len(rows)))
	s.env.CountIn(ctx, s.key, "num_branch_points", int64(len(tree.BranchGroups())))
	return func(tx *results.Tx) error {
		ids := make([]int64, len(rows))
		for i, n := range tree.Nodes {
			var parent int64
			if n.Parent >= 0 {
				parent = ids[n.Parent]
			}
			if err := setBranch(&rows[i], n, parent); err != nil {
				return err
			}
			id, err := tx.InsertEpisode(rows[i])
			if err != nil {
				return err
			}
			ids[i] = id
		}
		return nil
	}, nil
}
