package plugstart

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/runner"
)

// Spec names one plugin to start: a built-in by name, or Command.
type Spec struct {
	// Name is the judge or metric name in the experiment (for messages).
	Name string
	// Plugin is the built-in plugin name; ignored when Command is set.
	Plugin  string
	Command []string
	SHA256  string
	// Endpoints are the experiment endpoints the plugin calls: it inherits
	// their API key variables and no other endpoint's.
	Endpoints []string
	// InheritEnv are the variables the spec's env lists for the plugin;
	// with host.BaseEnv and the endpoints' keys they are all of the run's
	// environment it gets.
	InheritEnv []string
	// Env ("NAME=value") is set for the plugin (a builtin endpoint's
	// token, EngineTokenVar).
	Env []string
}

// EngineTokenVar holds, in the environment of a plugin that calls a
// builtin endpoint itself, the engine's per-run token (the plugin's
// api_key_env names it).
const EngineTokenVar = "MASCOT_ENGINE_TOKEN"

// HostConfig returns the host configuration for s: argv from Command, or
// from env.Plugins for a built-in. Stderr goes to env.Log.
func HostConfig(env *runner.Env, stage string, s Spec) (host.Config, error) {
	argv := s.Command
	if len(argv) > 0 && strings.ContainsRune(argv[0], '/') {
		// A relative command is taken from the spec's folder.
		argv = append([]string{env.LocalPath(argv[0])}, argv[1:]...)
	}
	if len(argv) == 0 {
		if env.Plugins == nil {
			return host.Config{}, fmt.Errorf("plugin %s: this build cannot start built-in plugins", s.Name)
		}
		argv = env.Plugins.Command(s.Plugin)
		if len(argv) == 0 {
			return host.Config{}, fmt.Errorf("plugin %s: no command serves built-in %q", s.Name, s.Plugin)
		}
	}
	log := logger(env).With("stage", stage, "plugin", s.Name)
	return host.Config{Name: s.Name, Command: argv[0], Args: argv[1:], SHA256: s.SHA256,
		InheritEnv: append(endpointKeys(env, s.Endpoints), s.InheritEnv...), Env: s.Env,
		Stderr: &LogWriter{Log: log},
		// Each restart is counted once, in the unit whose call (or whose
		// start of the plugin) made it, and logged with its cause.
		OnRestart: func(ctx context.Context, cause error) {
			env.CountIn(ctx, stage, "plugin."+s.Name+".restarts", 1)
			log.Warn("plugin restarted", "cause", cause.Error())
		}}, nil
}

// endpointKeys lists the API key variables of the named endpoints: the
// only keys a plugin inherits.
func endpointKeys(env *runner.Env, endpoints []string) []string {
	var keys []string
	for _, name := range endpoints {
		if v := env.Exp.Endpoints[name].APIKeyEnv; v != "" {
			keys = append(keys, v)
		}
	}
	return keys
}

func logger(env *runner.Env) *slog.Logger {
	if env.Log != nil {
		return env.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Lazy starts a plugin on first use and remembers the outcome, so a stage's
// concurrent units share one process and one failed start fails them all
// with the same error.
type Lazy[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get starts the plugin with start on the first call.
func (l *Lazy[T]) Get(start func() (T, error)) (T, error) {
	l.once.Do(func() { l.v, l.err = start() })
	return l.v, l.err
}

// StartJudge starts and configures a judge plugin and closes it with the run.
func StartJudge(ctx context.Context, env *runner.Env, stage string, s Spec, config json.RawMessage) (*host.PluginJudge, error) {
	cfg, err := HostConfig(env, stage, s)
	if err != nil {
		return nil, err
	}
	j, err := host.StartJudge(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, fmt.Errorf("starting judge %s: %w", s.Name, err)
	}
	env.OnClose(j.Close)
	ds, err := j.Configure(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("configuring judge %s: %w", s.Name, err)
	}
	if err := spec.DiagnosticsError(ds); err != nil {
		return nil, fmt.Errorf("configuring judge %s: %w", s.Name, err)
	}
	return j, nil
}

// StartMetric starts and configures a metric plugin and closes it with the run.
func StartMetric(ctx context.Context, env *runner.Env, stage string, s Spec, config json.RawMessage) (*host.PluginMetric, error) {
	cfg, err := HostConfig(env, stage, s)
	if err != nil {
		return nil, err
	}
	m, err := host.StartMetric(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, fmt.Errorf("starting metric %s: %w", s.Name, err)
	}
	env.OnClose(m.Close)
	ds, err := m.Configure(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("configuring metric %s: %w", s.Name, err)
	}
	if err := spec.DiagnosticsError(ds); err != nil {
		return nil, fmt.Errorf("configuring metric %s: %w", s.Name, err)
	}
	return m, nil
}

// LogWriter turns written bytes into one log record per line.
type LogWriter struct {
	Log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(w.buf[:i]); len(line) > 0 {
			w.Log.Info("plugin stderr", "line", string(line))
		}
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// Options decodes a plugin's options object ({} when empty).
func Options(raw json.RawMessage) (map[string]any, error) {
	m := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decoding plugin options: %w", err)
	}
	return m, nil
}

// CountCall records, in the counters of the unit ctx runs, whether one
// call to plugin name passed the call timeout (plugin.<name>.timeouts),
// and makes plugin.<name>.restarts exist: the restarts themselves are
// counted by the call that made each (HostConfig's OnRestart), so a death
// with several calls in flight counts once.
func CountCall(ctx context.Context, env *runner.Env, stage, name string, err error) {
	env.CountIn(ctx, stage, "plugin."+name+".restarts", 0)
	var ce *host.CallError
	timedOut := errors.As(err, &ce) && ce.Code == codes.DeadlineExceeded
	env.CountIn(ctx, stage, "plugin."+name+".timeouts", int64(btoi(timedOut)))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Check reports, without starting it, whether plugin s can be started:
// its executable exists (a relative command taken from the spec's folder,
// a bare name found in PATH) and is executable, and matches its sha256
// pin. Stages call it from their preflight, so a run whose plugin is
// missing stops before it does any work.
func Check(env *runner.Env, s Spec) error {
	argv := s.Command
	if len(argv) == 0 {
		if env.Plugins == nil {
			return fmt.Errorf("plugin %s: this build cannot start built-in plugins", s.Name)
		}
		if argv = env.Plugins.Command(s.Plugin); len(argv) == 0 {
			return fmt.Errorf("plugin %s: no command serves built-in %q", s.Name, s.Plugin)
		}
	}
	path := argv[0]
	if strings.ContainsRune(path, '/') {
		if len(s.Command) > 0 {
			path = env.LocalPath(path)
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Errorf("plugin %s: command %s does not exist", s.Name, path)
		case !st.Mode().IsRegular():
			return fmt.Errorf("plugin %s: command %s is not a file", s.Name, path)
		case st.Mode().Perm()&0o111 == 0:
			return fmt.Errorf("plugin %s: command %s is not executable (chmod +x)", s.Name, path)
		}
	} else {
		found, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("plugin %s: command %q is not in PATH", s.Name, path)
		}
		path = found
	}
	if s.SHA256 != "" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("plugin %s: %w", s.Name, err)
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return fmt.Errorf("plugin %s: hashing %s: %w", s.Name, path, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != s.SHA256 {
			return fmt.Errorf("plugin %s: sha256 of %s is %s, but the config pins %s", s.Name, path, got, s.SHA256)
		}
	}
	return nil
}
