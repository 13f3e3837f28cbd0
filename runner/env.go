package runner

import (
	"fmt"
	"io"
	"log/slog"
	"sync"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/schema"
)

// Env is what stages see of the run they belong to.
type Env struct {
	Store  *results.Store
	RunID  string
	RunDir string
	Exp    *schema.Experiment
	Log    *slog.Logger
	Strict bool
	LLM    *llm.Client
	// Gateway serves LLM as an endpoint for plugin processes (judges),
	// so their requests are cached, journaled, counted and traced like
	// the runner's own; nil when the run has no endpoints.
	Gateway *llm.Gateway
	Out     io.Writer // where report stages print
	Plugins PluginStarter
	// Files maps paths the config names to local files to read instead
	// (see LocalPath); nil reads every path as it is.
	Files map[string]string

	mu       sync.Mutex
	status   func(stage, text string)
	outputs  map[string]*Output
	counters map[string]map[string]int64
	closers  []func() error
}

// PluginStarter starts judge and metric plugins for stages; the CLI gives
// one that re-executes the mascot binary (`mascot plugin serve NAME`).
type PluginStarter interface {
	// Command returns the argv that serves a built-in plugin.
	Command(name string) []string
}

// Status shows what a running stage is doing (a training stage's step,
// loss and ETA): on a terminal beside the stage's bar, redrawn live; in a
// log as "stage KEY: TEXT" lines, at most one per StatusLogEvery per stage
// (the latest is printed when the stage finishes). Outside a run it does
// nothing.
func (e *Env) Status(stage, text string) {
	if e.status != nil {
		e.status(stage, text)
	}
}

// Output returns a finished stage's output.
func (e *Env) Output(key string) (*Output, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.outputs[key]
	if !ok {
		return nil, fmt.Errorf("stage %q has not finished", key)
	}
	return o, nil
}

func (e *Env) setOutput(o *Output) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outputs == nil {
		e.outputs = map[string]*Output{}
	}
	e.outputs[o.Key] = o
}

// Count adds n to a counter of stage; a count of 0 still records the
// counter (so a shard's zero counters reach the controller's run as the
// local run's do).
func (e *Env) Count(stage, name string, n int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counters == nil {
		e.counters = map[string]map[string]int64{}
	}
	if e.counters[stage] == nil {
		e.counters[stage] = map[string]int64{}
	}
	e.counters[stage][name] += n
}

// takeCounters returns and resets stage's counters.
func (e *Env) takeCounters(stage string) map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.counters[stage]
	delete(e.counters, stage)
	if c == nil {
		c = map[string]int64{}
	}
	return c
}

// OnClose registers cleanup run when the run ends (plugin processes,
// engines).
func (e *Env) OnClose(f func() error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closers = append(e.closers, f)
}

func (e *Env) close() error {
	e.mu.Lock()
	cs := e.closers
	e.closers = nil
	e.mu.Unlock()
	var first error
	for i := len(cs) - 1; i >= 0; i-- {
		if err := cs[i](); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// LocalPath is the file to read for a path the config names: itself, or
// what Files maps it to (a replay reads the data its capsule carries from
// where it unpacked it, while the config, and so every fingerprint, keeps
// the original path).
func (e *Env) LocalPath(p string) string {
	if q, ok := e.Files[p]; ok {
		return q
	}
	return p
}

// Seed derives a deterministic seed for a stage from the experiment seed.
func (e *Env) Seed(stage string) int64 { return StageSeed(e.Exp.Seed, stage) }

// StageSeed is the seed stage derives from the experiment seed: every
// random choice of the stage, and every request seed of its units, comes
// from it.
func StageSeed(expSeed int, stage string) int64 {
	h := fnv64(fmt.Sprintf("%d/%s", expSeed, stage))
	return int64(h & 0x7fffffffffffffff)
}

func fnv64(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
