package host

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"mascot.dev/mascot/plugins/internal/wire"
)

// Config says how to start and supervise one plugin process.
type Config struct {
	// Name is the plugin's name in messages ("rubric", "my-judge").
	Name string
	// Command is the executable (a path, or a name looked up in PATH);
	// Args its arguments, e.g. the mascot binary with "plugin", "serve", "rubric".
	Command string
	Args    []string
	// Env ("NAME=value") is set in the plugin's environment; Dir is the
	// working directory.
	Env []string
	Dir string
	// InheritEnv names the variables of the host's environment the plugin
	// inherits besides BaseEnv (the API keys of the endpoints it calls,
	// what its spec's env lists); a name ending in "*" is a prefix. No
	// other variable reaches it, so a third-party plugin never sees the
	// shell's other secrets.
	InheritEnv []string
	// SHA256, when set (hex), pins the executable: a binary whose sha256
	// differs is refused before it runs.
	SHA256 string
	// Stderr receives the plugin's stderr (the run log). Nil discards it.
	Stderr io.Writer
	// Logger receives the host's lifecycle messages about this plugin;
	// nil writes warnings and errors to Stderr.
	Logger hclog.Logger
	// CallTimeout bounds each call (default 5 minutes).
	CallTimeout time.Duration
	// StartTimeout bounds the start and handshake (default 30 s).
	StartTimeout time.Duration
	// MaxRestarts bounds the restarts made for one call, and the retries
	// of a start whose process died before its handshake (default 3).
	MaxRestarts int
	// OnRestart, when set, is told of each restart once, by the call (or
	// start) that made it, with that call's context and what made it
	// necessary: a caller counts restarts exactly, in the unit whose call
	// restarted the plugin, however many calls were in flight, and logs
	// them. Without it each restart is logged to Logger with its cause.
	OnRestart func(ctx context.Context, cause error)
	// RestartBackoff is the first backoff before a restart, doubled each
	// time up to 5 s (default 100 ms).
	RestartBackoff time.Duration
	// SplitBytes is the size each request is kept under (default just under
	// gRPC's 4 MiB).
	SplitBytes int
}

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = c.Command
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Logger == nil {
		c.Logger = hclog.New(&hclog.LoggerOptions{Name: "plugin-host." + c.Name, Level: hclog.Warn, Output: c.Stderr})
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 5 * time.Minute
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 30 * time.Second
	}
	if c.MaxRestarts <= 0 {
		c.MaxRestarts = 3
	}
	if c.RestartBackoff <= 0 {
		c.RestartBackoff = 100 * time.Millisecond
	}
	if c.SplitBytes <= 0 {
		c.SplitBytes = wire.DefaultSplitBytes
	}
	return c
}

func (c Config) validate() error {
	if c.Command == "" {
		return errors.New("plugin command is empty")
	}
	return nil
}
