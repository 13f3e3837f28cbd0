package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/schema"
)

// Services are what a run needs from outside the runner: the built-in
// engine for builtin endpoints, the commands that serve plugins, and the
// executors and server starters (runner/slurm) that run work elsewhere.
type Services struct {
	// Engine serves builtin endpoints; nil means this build has none.
	Engine Engine
	// Plugins says how to start built-in plugins.
	Plugins PluginStarter
	// Trace records every LLM request (--trace-role-calls).
	Trace bool
	// Executors run the stages whose executor (the stage's, else the
	// experiment's executor.kind) is one of their names; "" and "local"
	// run in this process and need none. This is the only way a run
	// finds an executor.
	Executors map[string]Executor
	// Servers starts the server jobs of slurm-server endpoints.
	Servers ServerStarter
	// Offline answers every LLM request from the response cache and
	// sends nothing (a replay); Missed is told of each request the cache
	// did not hold (which fails).
	Offline bool
	Missed  func(role, key string)
}

// ServerStarter starts one server (a job, for runner/slurm) for endpoint
// name as its server block declares, and returns its base URL once it
// answers, with the function that stops it. The runner does not read the
// block; it only starts server.Replicas of them.
type ServerStarter interface {
	StartEndpoint(ctx context.Context, runDir, name string, server schema.EndpointServer) (string, func(context.Context) error, error)
}

// Engine is a local OpenAI-compatible engine (trainer/serve) the runner
// starts for builtin endpoints. One Engine serves every run of a process:
// the variants of a sweep run side by side on it.
type Engine interface {
	// Start begins serving endpoint name and returns the run's handle on
	// its server. A model_dir endpoint is loaded now; a model_stage one
	// later (EngineServer.UseModel). Calls with the same name, endpoint
	// and share key (what the server will serve: the fingerprint of the
	// model stage, or the model) may get one server, kept until the last
	// handle is closed.
	Start(ctx context.Context, name string, ep schema.Endpoint, share string) (EngineServer, error)
	// Close stops every server the engine still holds.
	Close() error
}

// EngineServer is one run's handle on a built-in engine server.
type EngineServer interface {
	// URL is the server's base URL (…/v1).
	URL() string
	// Token is the bearer token the server requires on every route (its
	// guard refuses any request without it): made for this process, sent
	// only by the run's own LLM client and given to the plugins the run
	// starts for the endpoint. "" when the server needs none.
	Token() string
	// UseModel (re)loads the served base model from dir.
	UseModel(ctx context.Context, dir string) error
	// Close releases the handle; the server stops with its last handle.
	Close() error
}

// startServices builds the LLM client over every endpoint, starting
// builtin ones on loopback.
func (r *run) startServices(ctx context.Context) error {
	exp := r.opts.Loaded.Experiment
	cache := newStoreCache(ctx, r.opts.Store, r.opts.Log, r.env.RunID)
	r.env.OnClose(cache.close)
	r.cache = cache
	// Attempts of runs whose process died with them in flight are counted
	// as lost before this run sends anything.
	if n, err := r.opts.Store.SettleLost(ctx); err != nil {
		r.opts.Log.Warn("settling the LLM attempts of interrupted runs", "err", err)
	} else if n > 0 {
		r.opts.Log.Info("counted LLM attempts lost in flight by interrupted runs", "attempts", n)
	}
	seed := int64(exp.Seed)
	cfg := llm.Config{Roles: map[string]string{}, Cache: cache, Journal: cache, RunSeed: &seed,
		Offline: r.opts.Services.Offline, Missed: r.opts.Services.Missed}
	for _, name := range sortedKeys(exp.Endpoints) {
		ep := exp.Endpoints[name]
		urls := ep.URLs
		if ep.Kind == "slurm-server" {
			var err error
			if urls, err = r.serverURLs(ctx, name, ep); err != nil {
				return err
			}
			ep.URLs = urls
			exp.Endpoints[name] = ep
		}
		if ep.Kind == "builtin" {
			if r.opts.Services.Engine == nil {
				return fmt.Errorf("endpoint %s is builtin, but this build has no built-in engine", name)
			}
			started := ep
			started.ModelDir = r.env.LocalPath(ep.ModelDir)
			srv, err := r.opts.Services.Engine.Start(ctx, name, started, r.engineShare(ep))
			if err != nil {
				return fmt.Errorf("starting built-in engine for endpoint %s: %w", name, err)
			}
			r.servers[name] = srv
			r.env.OnClose(srv.Close)
			if r.env.EngineTokens == nil {
				r.env.EngineTokens = map[string]string{}
			}
			r.env.EngineTokens[name] = srv.Token()
			urls = []string{srv.URL()}
			// Stages that configure plugins (the rubric judge) read the
			// endpoint's URL from the experiment.
			ep.URLs = urls
			exp.Endpoints[name] = ep
		}
		ep.URLs = urls
		le := llmEndpoint(name, ep)
		le.APIKey = r.env.EngineTokens[name]
		cfg.Endpoints = append(cfg.Endpoints, le)
		cfg.Roles[name] = name
	}
	if r.opts.Services.Trace {
		cfg.Trace = func(ev llm.TraceEvent) {
			_ = r.opts.Store.PutLLMCall(context.WithoutCancel(ctx), traceRow(r.env.RunID, ev))
		}
	}
	if len(cfg.Endpoints) > 0 {
		c, err := llm.New(cfg)
		if err != nil {
			return fmt.Errorf("configuring endpoints: %w", err)
		}
		r.env.LLM = c
		r.env.OnClose(c.Close)
		g, err := llm.StartGateway(c)
		if err != nil {
			return err
		}
		r.env.Gateway = g
		r.env.OnClose(g.Close) // closes before the client it serves
	}
	r.env.Plugins = r.opts.Services.Plugins
	return nil
}

// llmEndpoint is the llm configuration of experiment endpoint name:
// replicas, concurrency, retries, timeouts, key variable and sampling. The
// judge stage writes the same settings into the rubric plugin's options
// (runner/stages/judge rubricEndpoint), so both call an endpoint alike.
func llmEndpoint(name string, ep schema.Endpoint) llm.Endpoint {
	think := ep.EnableThinking
	retries := ep.Retries
	if retries == 0 {
		retries = -1 // the spec's 0 is "no retry"; llm's zero value means its default
	}
	e := llm.Endpoint{Name: name, URLs: ep.URLs, Model: ep.Model, APIKeyEnv: ep.APIKeyEnv,
		Concurrency: ep.Concurrency, Retries: retries, EnableThinking: &think,
		Timeout: parseDur(ep.Timeout), TotalTimeout: parseDur(ep.TotalTimeout)}
	t, p, k := ep.Sampling.Temperature, ep.Sampling.TopP, ep.Sampling.TopK
	rp := ep.Sampling.RepetitionPenalty
	e.Sampling = llm.Sampling{Temperature: &t, TopP: &p, TopK: &k, MaxTokens: ep.Sampling.MaxTokens, RepetitionPenalty: &rp}
	if n := ep.Sampling.TruncatePromptTokens; n != 0 {
		e.Sampling.TruncatePromptTokens = &n
	}
	return e
}

// engineShare is the share key of a builtin endpoint: what its server
// will serve. Runs whose model stage has the same fingerprint serve the
// same model, so their endpoints can share one server.
func (r *run) engineShare(ep schema.Endpoint) string {
	if ep.ModelStage != "" {
		return "stage " + r.fps[ep.ModelStage]
	}
	return ""
}

// serverURLs starts the server jobs of a slurm-server endpoint (stopped
// when the run ends) and returns their URLs. In a shard run it reads the
// URLs the controller's servers published in its run directory instead.
func (r *run) serverURLs(ctx context.Context, name string, ep schema.Endpoint) ([]string, error) {
	if dir := r.shardRunDir(); dir != "" {
		return publishedURLs(filepath.Join(dir, "endpoints", name))
	}
	if r.opts.Services.Servers == nil || ep.Server == nil {
		return nil, fmt.Errorf("endpoint %s is served by Slurm jobs, but this build cannot submit them", name)
	}
	var urls []string
	for i := 0; i < max(1, ep.Server.Replicas); i++ {
		u, stop, err := r.opts.Services.Servers.StartEndpoint(ctx, r.env.RunDir, name, *ep.Server)
		if err != nil {
			return nil, fmt.Errorf("starting server job %d of endpoint %s: %w", i+1, name, err)
		}
		r.env.OnClose(func() error { return stop(context.WithoutCancel(ctx)) })
		urls = append(urls, u)
	}
	return urls, nil
}

// publishedURLs reads the endpoint files server jobs wrote ({"url": ...}).
func publishedURLs(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no server has published an endpoint in %s", dir)
	}
	var urls []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading endpoint file: %w", err)
		}
		var e struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(b, &e); err != nil || e.URL == "" {
			return nil, fmt.Errorf("endpoint file %s holds no url", f)
		}
		urls = append(urls, e.URL)
	}
	return urls, nil
}

// prepareEndpoints loads, before a stage runs, the model of every builtin
// endpoint whose model stage has finished (judges and metrics reach
// endpoints through their own configs, so all of them are kept current).
func (r *run) prepareEndpoints(ctx context.Context, key string) error {
	exp := r.opts.Loaded.Experiment
	r.engineMu.Lock()
	defer r.engineMu.Unlock()
	for _, name := range sortedKeys(exp.Endpoints) {
		ep := exp.Endpoints[name]
		if ep.Kind != "builtin" || ep.ModelStage == "" || ep.ModelStage == key {
			continue
		}
		out, err := r.env.Output(ep.ModelStage)
		if err != nil {
			continue // not finished yet; stages that need it depend on it
		}
		dir := ""
		for _, a := range out.Artifacts {
			if a.Kind == "model" || a.Kind == "checkpoint" {
				dir = a.Path
			}
		}
		if dir == "" {
			return fmt.Errorf("stage %s recorded no model directory for endpoint %s", ep.ModelStage, name)
		}
		if r.loaded[name] == dir {
			continue
		}
		if err := r.servers[name].UseModel(ctx, dir); err != nil {
			return fmt.Errorf("loading %s into endpoint %s: %w", dir, name, err)
		}
		r.loaded[name] = dir
	}
	return nil
}

func traceRow(runID string, ev llm.TraceEvent) results.LLMCall {
	return results.LLMCall{RunID: runID, Role: ev.Role + "@" + ev.Endpoint, ModelID: ev.Model, URL: ev.URL,
		PromptTokens: ev.PromptTokens, CompletionTokens: ev.CompletionTokens, Latency: ev.Latency,
		Attempts: ev.Attempts, Cached: ev.Status == "cached", Error: ev.Error}
}

func parseDur(s string) time.Duration {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return d
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return sortedStrings(out)
}
