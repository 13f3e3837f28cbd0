package train

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

// Engine serves builtin endpoints with trainer/serve, one server per
// endpoint on loopback.
type Engine struct {
	mu      sync.Mutex
	servers map[string]*serve.Server
}

// NewEngine returns the built-in engine the runner starts builtin
// endpoints on.
func NewEngine() runner.Engine { return &Engine{servers: map[string]*serve.Server{}} }

// Start serves endpoint name. A model_dir endpoint (or one whose model is
// a local directory or a hub id in the local cache) is loaded now; a
// model_stage endpoint serves a random placeholder of the tiny byte-level
// shape until UseModel loads the stage's model.
func (e *Engine) Start(ctx context.Context, name string, ep schema.Endpoint) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.servers[name]; dup {
		return "", fmt.Errorf("endpoint %s is already being served", name)
	}
	opts := serve.Options{ModelID: ep.Model, MaxBatch: max(1, ep.Concurrency)}
	var srv *serve.Server
	var err error
	switch {
	case ep.ModelDir != "":
		opts.ModelDir = ep.ModelDir
		srv, err = serve.New(opts)
	case ep.ModelStage != "":
		srv, err = placeholder(opts)
	default:
		dir, ferr := findModel(ep.Model)
		if ferr != nil {
			return "", ferr
		}
		opts.ModelDir = dir
		srv, err = serve.New(opts)
	}
	if err != nil {
		return "", fmt.Errorf("starting engine for %s: %w", name, err)
	}
	url, err := srv.Start()
	if err != nil {
		_ = srv.Close()
		return "", err
	}
	e.servers[name] = srv
	return url, nil
}

// placeholder serves a random tiny model until the real one is loaded.
func placeholder(opts serve.Options) (*serve.Server, error) {
	bt := tokenizer.NewByteLevel()
	cfg := qwen3.Config{Architectures: []string{qwen3.CausalLM}, ModelType: "qwen3", VocabSize: tokenizer.ByteLevelVocabSize,
		HiddenSize: 8, IntermediateSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 1, NumKeyValueHeads: 1, HeadDim: 8,
		HiddenAct: "silu", MaxPositionEmbeddings: 2048, RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true,
		EOSTokenID: bt.Specials().EOS}
	m, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		return nil, err
	}
	return serve.NewFromModel(m, bt, "placeholder", opts)
}

// UseModel loads the model directory dir into endpoint name's server.
func (e *Engine) UseModel(ctx context.Context, name, dir string) error {
	e.mu.Lock()
	srv, ok := e.servers[name]
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("endpoint %s is not served by the built-in engine", name)
	}
	return srv.LoadModel(dir)
}

// Close stops every server.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for n, s := range e.servers {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing endpoint %s: %w", n, err))
		}
		delete(e.servers, n)
	}
	return errors.Join(errs...)
}
