package train

import (
	"context"
	"fmt"
	"path/filepath"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/net"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// Network is the trainable model a loop drives: trainer/net's Model (the
// default) or trainer/autodiff's (Options.Network "autodiff"). Passes
// follow trainer/pass; the trainable parameters live on Backend, where
// the optimizer updates them.
type Network interface {
	Forward(ctx context.Context, b pass.Batch, o pass.RunOptions) (*pass.Outputs, error)
	Backward(ctx context.Context, b pass.Batch, o pass.RunOptions, seedLogP, seedScore [][]float64) (*pass.Outputs, error)
	BackwardScores(ctx context.Context, b pass.Batch, o pass.RunOptions, seed func(score [][]float64) ([][]float64, error)) (*pass.Outputs, error)
	Backend() compute.Backend
	TrainParams() []pass.Param
	// Weights, LoRAWeights and MergedWeights return float32 copies in
	// Hugging Face / PEFT layout.
	Weights() qwen3.Weights
	LoRAWeights() qwen3.Weights
	MergedWeights() qwen3.Weights
	Close()
}

var (
	_ Network = (*net.Model)(nil)
)

// baseSource is where a job's base weights come from: a model in memory
// (float32, shared with the GRPO sampler) or a checkpoint directory read
// straight onto the backend.
type baseSource struct {
	model *qwen3.Model
	dir   string
}

// config is the base's config.
func (b baseSource) config() (qwen3.Config, error) {
	if b.model != nil {
		return b.model.Config, nil
	}
	if b.dir == "" {
		return qwen3.Config{}, fmt.Errorf("no base model")
	}
	return qwen3.LoadConfig(filepath.Join(b.dir, "config.json"))
}

// newNetwork builds the network o asks for over the base, with the
// trainable set train.
func newNetwork(o Options, base baseSource, train pass.Trainable, score bool) (Network, error) {
	cfg, err := base.config()
	if err != nil {
		return nil, err
	}
	switch o.Network {
	case NetworkAutodiff:
		return newAutodiff(o, base, cfg, train, score)
	case "", NetworkNet:
		be := o.Backend
		if be == nil {
			c, err := cpu.New(cpu.Options{Threads: o.Threads})
			if err != nil {
				return nil, err
			}
			be = c
		}
		src := net.FromDir(base.dir)
		if base.model != nil {
			src = net.FromWeights(base.model.Weights)
		}
		return net.New(be, cfg, src, net.Options{LoRA: o.LoRA, Train: train, ScoreHead: score, Seed: o.Seed,
			InitLoRA: o.InitAdapter, BaseDType: o.BaseDType, KeepActivations: o.KeepActivations, ChunkTokens: o.ChunkTokens})
	}
	return nil, fmt.Errorf("unknown network %q (want %q or %q)", o.Network, NetworkNet, NetworkAutodiff)
}

// newPolicy builds the trainable network: adapters when o.LoRA is set,
// else every weight.
func newPolicy(base baseSource, o Options, score bool) (Network, error) {
	t := pass.TrainAll
	if o.LoRA != nil {
		t = pass.TrainLoRA
		if score {
			t = pass.TrainLoRAAndScore
		}
	}
	return newNetwork(o, base, t, score)
}
