package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/optim"
)

// session is the machinery every loop shares: the model, the optimizer,
// the batch schedule, metrics and checkpoints.
type session struct {
	kind  string
	o     Options
	model *autodiff.Model
	opt   *optim.Optimizer
	start int
	began time.Time
	res   Result
	// ckptMultiple restricts checkpoints to steps that are multiples of it
	// (GRPO generation boundaries).
	ckptMultiple int
}

func (o Options) withDefaults() Options {
	if o.GradAccum <= 0 {
		o.GradAccum = 1
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 1
	}
	if o.Optim.TotalSteps == 0 {
		o.Optim.TotalSteps = o.Steps
	}
	if o.CheckpointEvery <= 0 {
		o.CheckpointEvery = 10
	}
	return o
}

func newSession(kind string, o Options, m *autodiff.Model) (*session, error) {
	if o.Steps <= 0 {
		return nil, fmt.Errorf("starting %s: steps must be positive", kind)
	}
	if o.OutputDir == "" {
		return nil, fmt.Errorf("starting %s: no output directory", kind)
	}
	var ps []optim.Param
	for _, p := range m.Params.Trainable() {
		ps = append(ps, optim.Param{Name: p.Name, Value: p.F32(), Grad: p.Grad, Decay: p.Decay})
	}
	opt, err := optim.New(o.Optim, ps)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", kind, err)
	}
	s := &session{kind: kind, o: o, model: m, opt: opt}
	if o.CheckpointDir != "" {
		step, err := loadCheckpoint(o.CheckpointDir, kind, m, opt)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", kind, err)
		}
		s.start = step
		s.res.ResumedFrom = step
	}
	return s, nil
}

// pick returns the example indices of micro-batch j of step k: the
// examples are read in epochs, each a fresh permutation seeded by
// (seed, epoch), so the schedule depends only on the seed, k and j.
func (s *session) pick(n, k, j int) []int {
	return s.pickAt(n, k*s.o.GradAccum+j)
}

// pickAt returns the BatchSize example indices of batch slot number slot.
func (s *session) pickAt(n, slot int) []int {
	b := s.o.BatchSize
	out := make([]int, b)
	var perm []int
	epoch := -1
	for i := range out {
		g := slot*b + i
		if e := g / n; e != epoch {
			epoch = e
			perm = rand.New(rand.NewPCG(s.o.Seed, uint64(e)+1)).Perm(n)
		}
		out[i] = perm[g%n]
	}
	return out
}

// dropoutSeed is the LoRA dropout stream of micro-batch j of step k.
func (s *session) dropoutSeed(k, j int) uint64 {
	return s.o.Seed ^ uint64(k)<<20 ^ uint64(j)<<8 ^ 0xd50
}

// begin marks the start of step k.
func (s *session) begin(ctx context.Context) error {
	s.began = time.Now()
	return ctx.Err()
}

// finish applies the optimizer step, reports metrics and checkpoints.
func (s *session) finish(k int, m Metrics) error {
	st := s.opt.Step()
	m.Step, m.GradNorm, m.LR = k+1, st.GradNorm, st.LR
	if el := time.Since(s.began).Seconds(); el > 0 {
		m.TokensPerSec = float64(m.Tokens) / el
	}
	s.res.History = append(s.res.History, m)
	s.res.Steps = k + 1
	if s.o.OnStep != nil {
		s.o.OnStep(m)
	}
	boundary := s.ckptMultiple <= 1 || (k+1)%s.ckptMultiple == 0
	if s.o.CheckpointDir != "" && boundary && ((k+1)%s.o.CheckpointEvery == 0 || k+1 == s.o.Steps) {
		if err := saveCheckpoint(s.o.CheckpointDir, s.kind, k+1, s.model, s.opt); err != nil {
			return err
		}
	}
	return nil
}

// loraOnly reports an error when a loop that needs an adapter has none.
func loraOnly(kind string, o Options) error {
	if o.LoRA == nil {
		return fmt.Errorf("starting %s: a LoRA config is required (the reference policy is the adapter-disabled base)", kind)
	}
	return nil
}
