package train

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"mascot.dev/mascot/internal/httpguard"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

// Engine serves builtin endpoints with trainer/serve on loopback. Runs in
// one process (the variants of a sweep) that start the same endpoint over
// the same model share one server: Start hands out reference-counted
// handles, and the server stops when its last handle is closed. Each run
// closes only its own handles, so a variant that finishes first never
// stops the server another variant still uses.
type Engine struct {
	mu      sync.Mutex
	servers map[string]*shared
}

// shared is one server and the handles that use it.
type shared struct {
	key   string
	name  string
	srv   *serve.Server
	url   string
	token string
	refs  int

	loadMu sync.Mutex
	dir    string // model directory loaded by UseModel ("" before)
}

// NewEngine returns the built-in engine the runner starts builtin
// endpoints on.
func NewEngine() runner.Engine { return &Engine{servers: map[string]*shared{}} }

// Start serves endpoint name. A model_dir endpoint (or one whose model is
// a local directory or a hub id in the local cache) is loaded now; a
// model_stage endpoint serves a random placeholder of the tiny byte-level
// shape until UseModel loads the stage's model. Calls with the same name,
// model, batch size and share key get the same server.
func (e *Engine) Start(ctx context.Context, name string, ep schema.Endpoint, share string) (runner.EngineServer, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d", name, share, ep.Model, ep.ModelDir, max(1, ep.Concurrency))
	e.mu.Lock()
	defer e.mu.Unlock()
	if s, ok := e.servers[key]; ok {
		s.refs++
		return &handle{e: e, s: s}, nil
	}
	// Every route needs a token made here, which only the runs of this
	// process send: a web page probing loopback ports cannot swap the
	// adapters an evaluation uses (the runner loads them over HTTP).
	token, err := httpguard.NewToken()
	if err != nil {
		return nil, err
	}
	opts := serve.Options{ModelID: ep.Model, MaxBatch: max(1, ep.Concurrency), Token: token, AdapterUpdates: true}
	var srv *serve.Server
	switch {
	case ep.ModelDir != "":
		opts.ModelDir = ep.ModelDir
		srv, err = serve.New(opts)
	case ep.ModelStage != "":
		srv, err = placeholder(opts)
	default:
		dir, ferr := findModel(ep.Model)
		if ferr != nil {
			return nil, ferr
		}
		opts.ModelDir = dir
		srv, err = serve.New(opts)
	}
	if err != nil {
		return nil, fmt.Errorf("starting engine for %s: %w", name, err)
	}
	url, err := srv.Start()
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	s := &shared{key: key, name: name, srv: srv, url: url, token: token, refs: 1}
	e.servers[key] = s
	return &handle{e: e, s: s}, nil
}

// CheckEndpoint implements runner.EndpointChecker: a model_dir must hold
// a model (config.json), a model without model_dir or model_stage must be
// a local directory or a hub id in the local cache. A model_stage endpoint
// needs nothing yet.
func (e *Engine) CheckEndpoint(name string, ep schema.Endpoint) error {
	switch {
	case ep.ModelDir != "":
		if !isModelDir(ep.ModelDir) {
			return fmt.Errorf("endpoint %s: %s holds no model (no config.json)", name, ep.ModelDir)
		}
	case ep.ModelStage == "":
		if _, err := findModel(ep.Model); err != nil {
			return fmt.Errorf("endpoint %s: %w", name, err)
		}
	}
	return nil
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

// Close stops every server, whatever handles remain.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for k, s := range e.servers {
		if err := s.srv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing endpoint %s: %w", s.name, err))
		}
		delete(e.servers, k)
	}
	return errors.Join(errs...)
}

// release drops one handle of s, stopping the server with the last.
func (e *Engine) release(s *shared) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s.refs--
	if s.refs > 0 || e.servers[s.key] != s {
		return nil
	}
	delete(e.servers, s.key)
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("closing endpoint %s: %w", s.name, err)
	}
	return nil
}

// handle is one run's use of a shared server.
type handle struct {
	e      *Engine
	s      *shared
	closed sync.Once
}

// URL implements runner.EngineServer.
func (h *handle) URL() string { return h.s.url }

// Token implements runner.EngineServer.
func (h *handle) Token() string { return h.s.token }

// UseModel loads the model directory dir into the server. Handles that
// share a server were started for the same model stage fingerprint, so
// they load the same directory; the first load serves them all. A
// different directory while others use the server would change their
// model under them, and is refused.
func (h *handle) UseModel(ctx context.Context, dir string) error {
	s := h.s
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if s.dir == dir {
		return nil
	}
	h.e.mu.Lock()
	refs := s.refs
	h.e.mu.Unlock()
	if s.dir != "" && refs > 1 {
		return fmt.Errorf("endpoint %s's server, shared by %d runs, serves %s; this run asks for %s", s.name, refs, s.dir, dir)
	}
	if err := s.srv.LoadModel(dir); err != nil {
		return err
	}
	s.dir = dir
	return nil
}

// Close implements runner.EngineServer; a second call does nothing.
func (h *handle) Close() error {
	var err error
	h.closed.Do(func() { err = h.e.release(h.s) })
	return err
}
