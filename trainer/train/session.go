package train

import (
	"context"
	"fmt"
	"time"

	"mascot.dev/mascot/trainer/net"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/qwen3"
)

// session is the machinery every loop shares: the model, the optimizer,
// the batch schedule, metrics and checkpoints.
type session struct {
	kind  string
	o     Options
	model Network
	cfg   qwen3.Config // the base's (for writing a full model)
	opt   *optim.Device
	start int
	began time.Time
	// flops0 are the network's counters when the step began.
	flops0 net.Counters
	res    Result
	orders orderCache
	// ckptMultiple restricts checkpoints to steps that are multiples of it
	// (GRPO generation boundaries).
	ckptMultiple int
	// afterStep, when set, runs after step k's optimizer update and adds
	// to its metrics before they are reported (the reward model's
	// held-out evaluation).
	afterStep func(k int, m *Metrics) error
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

func newSession(kind string, o Options, m Network, cfg qwen3.Config) (*session, error) {
	if o.Steps <= 0 {
		return nil, fmt.Errorf("starting %s: steps must be positive", kind)
	}
	if o.OutputDir == "" {
		return nil, fmt.Errorf("starting %s: no output directory", kind)
	}
	opt, err := optim.NewDevice(o.Optim, m.Backend(), m.TrainParams())
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", kind, err)
	}
	s := &session{kind: kind, o: o, model: m, cfg: cfg, opt: opt}
	if o.CheckpointDir != "" {
		step, err := loadCheckpoint(o.CheckpointDir, kind, m, opt)
		if err != nil {
			opt.Close()
			return nil, fmt.Errorf("starting %s: %w", kind, err)
		}
		s.start = step
		s.res.ResumedFrom = step
	}
	return s, nil
}

// close frees the optimizer state.
func (s *session) close() { s.opt.Close() }

// dropoutSeed is the LoRA dropout stream of micro-batch j of step k.
func (s *session) dropoutSeed(k, j int) uint64 {
	return s.o.Seed ^ uint64(k)<<20 ^ uint64(j)<<8 ^ 0xd50
}

// counting is a Network that counts its FLOPs (trainer/net).
type counting interface{ Counters() net.Counters }

func (s *session) counters() net.Counters {
	if c, ok := s.model.(counting); ok {
		return c.Counters()
	}
	return net.Counters{}
}

// begin marks the start of step k.
func (s *session) begin(ctx context.Context) error {
	s.began, s.flops0 = time.Now(), s.counters()
	return ctx.Err()
}

// finish applies the optimizer step, reports metrics and checkpoints.
func (s *session) finish(k int, m Metrics) error {
	st, err := s.opt.Step()
	if err != nil {
		return err
	}
	m.Step, m.GradNorm, m.LR = k+1, st.GradNorm, st.LR
	c := s.counters()
	m.HardwareFLOPs, m.ModelFLOPs = c.Hardware-s.flops0.Hardware, c.Model-s.flops0.Model
	if el := time.Since(s.began).Seconds(); el > 0 {
		m.TokensPerSec = float64(m.Tokens) / el
	}
	if s.afterStep != nil {
		if err := s.afterStep(k, &m); err != nil {
			return err
		}
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
