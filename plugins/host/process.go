package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"mascot.dev/mascot/plugins/internal/wire"
	"mascot.dev/mascot/plugins/spec"
)

// invoker runs calls against a plugin implementation; process supervises a
// real plugin process, direct wraps an in-process or in-memory one.
type invoker interface {
	call(ctx context.Context, method string, fn func(ctx context.Context, raw any) error) error
	setConfig(config json.RawMessage)
	restarts() int
	close() error
}

// direct is the invoker for an implementation without a process.
type direct struct {
	raw     any
	kind    string
	name    string
	timeout time.Duration
}

func (d *direct) call(ctx context.Context, method string, fn func(context.Context, any) error) error {
	if d.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	if err := fn(ctx, d.raw); err != nil {
		if _, ok := status.FromError(err); ok {
			return callError(d.kind, d.name, method, d.timeout, 0, err)
		}
		return err
	}
	return nil
}
func (d *direct) setConfig(json.RawMessage) {}
func (d *direct) restarts() int             { return 0 }
func (d *direct) close() error              { return nil }

// process supervises one plugin process and replaces it when it dies.
type process struct {
	cfg  Config
	kind string // wire.JudgeName or wire.MetricName

	mu       sync.Mutex
	client   *plugin.Client
	raw      any
	gen      int
	config   json.RawMessage
	closed   bool
	nRestart atomic.Int64
}

func startProcess(ctx context.Context, cfg Config, kind string) (*process, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("starting %s plugin %s: %w", kind, cfg.Name, err)
	}
	p := &process{cfg: cfg, kind: kind}
	if err := p.launch(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// launch starts a fresh process and dispenses the plugin; p.mu held or unshared.
func (p *process) launch(ctx context.Context) error {
	cmd := exec.Command(p.cfg.Command, p.cfg.Args...)
	// Config.Env must win over the host's environment, so the host's is
	// added here first and go-plugin is told to skip it.
	cmd.Env = append(withoutVars(os.Environ(), p.cfg.DropEnv), p.cfg.Env...)
	cmd.Dir = p.cfg.Dir
	dieWithHost(cmd)
	cc := &plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          wire.PluginSet(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Managed:          true,
		SkipHostEnv:      true,
		Stderr:           p.cfg.Stderr,
		Logger:           p.cfg.Logger,
		GRPCDialOptions:  wire.DialOptions(),
		StartTimeout:     p.cfg.StartTimeout,
	}
	if p.cfg.SHA256 != "" {
		want, err := hex.DecodeString(p.cfg.SHA256)
		if err != nil || len(want) != sha256.Size {
			return fmt.Errorf("starting %s plugin %s: sha256 pin %q is not 64 hex digits", p.kind, p.cfg.Name, p.cfg.SHA256)
		}
		cc.SecureConfig = &plugin.SecureConfig{Checksum: want, Hash: sha256.New()}
	}
	client := plugin.NewClient(cc)
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			return fmt.Errorf("refusing to start %s plugin %s: sha256 of %s is %s, but the config pins %s: %w",
				p.kind, p.cfg.Name, cmd.Path, fileSHA256(cmd.Path), p.cfg.SHA256, ErrChecksumMismatch)
		}
		return fmt.Errorf("starting %s plugin %s (%s): %w; see its stderr log", p.kind, p.cfg.Name, cmd.Path, err)
	}
	raw, err := rpc.Dispense(p.kind)
	if err == nil {
		err = rpc.Ping()
	}
	if err != nil {
		client.Kill()
		return fmt.Errorf("connecting to %s plugin %s: %w", p.kind, p.cfg.Name, err)
	}
	p.client, p.raw = client, raw
	if p.config != nil {
		if err := p.replayConfig(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (p *process) replayConfig(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout)
	defer cancel()
	type configurer interface {
		Configure(context.Context, json.RawMessage) ([]spec.Diagnostic, error)
	}
	ds, err := p.raw.(configurer).Configure(cctx, p.config)
	if err != nil {
		return callError(p.kind, p.cfg.Name, "Configure", p.cfg.CallTimeout, int(p.nRestart.Load()), err)
	}
	if e := diagnosticsError(ds); e != nil {
		return fmt.Errorf("reconfiguring %s plugin %s after restart: %w", p.kind, p.cfg.Name, e)
	}
	return nil
}

// withoutVars returns env ("NAME=value" entries) without the named variables.
func withoutVars(env, names []string) []string {
	if len(names) == 0 {
		return env
	}
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		drop[n] = true
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			out = append(out, kv)
		}
	}
	return out
}

func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (p *process) current() (any, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, 0, fmt.Errorf("%s plugin %s: %w", p.kind, p.cfg.Name, ErrClosed)
	}
	return p.raw, p.gen, nil
}

// dead reports whether err means the process of generation gen is gone.
func (p *process) dead(err error, gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return true // already replaced by a concurrent call
	}
	if p.client.Exited() {
		return true
	}
	st, _ := status.FromError(err)
	return st.Code() == codes.Unavailable
}

// restart replaces the process of generation gen, unless a concurrent call
// already did.
func (p *process) restart(ctx context.Context, gen int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("%s plugin %s: %w", p.kind, p.cfg.Name, ErrClosed)
	}
	if p.gen != gen {
		return nil
	}
	p.cfg.Logger.Warn("plugin process died; restarting", "plugin", p.cfg.Name, "restart", p.nRestart.Load()+1)
	p.client.Kill()
	p.nRestart.Add(1)
	p.gen++
	return p.launch(ctx)
}

func (p *process) call(ctx context.Context, method string, fn func(context.Context, any) error) error {
	backoff := p.cfg.RestartBackoff
	made := 0
	for {
		raw, gen, err := p.current()
		if err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout)
		err = fn(cctx, raw)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !p.dead(err, gen) || made >= p.cfg.MaxRestarts {
			return callError(p.kind, p.cfg.Name, method, p.cfg.CallTimeout, made, err)
		}
		select {
		case <-ctx.Done():
			return callError(p.kind, p.cfg.Name, method, p.cfg.CallTimeout, made, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
		made++
		if rerr := p.restart(ctx, gen); rerr != nil {
			p.cfg.Logger.Error("restarting plugin failed", "plugin", p.cfg.Name, "error", rerr)
			// The next loop iteration sees a dead process again and retries
			// the restart until MaxRestarts is used up.
			if made >= p.cfg.MaxRestarts {
				return fmt.Errorf("restarting %s plugin %s after it died during %s: %w", p.kind, p.cfg.Name, method, rerr)
			}
		}
	}
}

func (p *process) setConfig(config json.RawMessage) {
	p.mu.Lock()
	p.config = append(json.RawMessage(nil), config...)
	p.mu.Unlock()
}

func (p *process) restarts() int { return int(p.nRestart.Load()) }

func (p *process) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.client.Kill()
	return nil
}

// CleanupAll kills every plugin process the host started; call it once on
// the way out (for example from a signal handler).
func CleanupAll() { plugin.CleanupClients() }
