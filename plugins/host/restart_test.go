package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/internal/fakejudge"
	"mascot.dev/mascot/plugins/spec"
)

// restartLog records Config.OnRestart's calls.
type restartLog struct {
	mu     sync.Mutex
	causes []string
}

func (r *restartLog) hook(_ context.Context, cause error) {
	r.mu.Lock()
	r.causes = append(r.causes, cause.Error())
	r.mu.Unlock()
}

func (r *restartLog) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.causes)
}

// dyingConfig is selfConfig("judge") whose first `times` processes SIGKILL
// themselves before their handshake.
func dyingConfig(t *testing.T, times string, log *restartLog) (host.Config, string) {
	deaths := filepath.Join(t.TempDir(), "deaths")
	cfg := selfConfig("judge")
	cfg.Env = append(cfg.Env, "MASCOT_TEST_DIE_AT_START="+deaths, "MASCOT_TEST_DIE_TIMES="+times)
	cfg.OnRestart = log.hook
	return cfg, deaths
}

// TestKilledDuringHandshakeIsRestarted: a plugin whose first two processes
// are killed during the handshake starts on the third, with two restarts
// counted (Restarts and OnRestart, each with its cause) and scores; one
// killed more often than MaxRestarts allows fails to start, after exactly
// MaxRestarts restarts, with go-plugin's error.
func TestKilledDuringHandshakeIsRestarted(t *testing.T) {
	ctx := context.Background()
	var log restartLog
	cfg, deaths := dyingConfig(t, "2", &log)
	j, err := host.StartJudge(ctx, cfg)
	if err != nil {
		t.Fatalf("start after two deaths in the handshake: %v", err)
	}
	defer j.Close()
	if b, _ := os.ReadFile(deaths); strings.Count(string(b), "\n") != 2 {
		t.Fatalf("deaths file %q, want two", b)
	}
	if j.Restarts() != 2 || log.n() != 2 {
		t.Fatalf("restarts %d, OnRestart calls %d (%q), want 2 and 2", j.Restarts(), log.n(), log.causes)
	}
	for _, c := range log.causes {
		if c == "" {
			t.Error("a restart without its cause")
		}
	}
	res, err := j.Score(ctx, []spec.Item{{ID: "x", Response: "two words"}})
	if err != nil || res.Results[0].Scores[0].Raw != 2 {
		t.Fatalf("score after the restarts: %+v %v", res, err)
	}

	var log2 restartLog
	cfg, deaths = dyingConfig(t, "9", &log2)
	if _, err := host.StartJudge(ctx, cfg); err == nil || !strings.Contains(err.Error(), "starting judge plugin fake-judge") {
		t.Fatalf("a plugin that always dies started, or failed otherwise: %v", err)
	}
	if b, _ := os.ReadFile(deaths); strings.Count(string(b), "\n") != 4 || log2.n() != 3 {
		t.Fatalf("%d starts and %d restarts, want 4 starts (MaxRestarts 3 + 1) and 3 restarts", strings.Count(string(b), "\n"), log2.n())
	}
}

// TestMissingPluginIsNotRetried: a command that does not exist fails at
// once, with no restart.
func TestMissingPluginIsNotRetried(t *testing.T) {
	var log restartLog
	cfg := selfConfig("judge")
	cfg.Command = filepath.Join(t.TempDir(), "no-such-plugin")
	cfg.OnRestart = log.hook
	if _, err := host.StartJudge(context.Background(), cfg); err == nil {
		t.Fatal("a missing plugin started")
	}
	if log.n() != 0 {
		t.Fatalf("%d restarts of a missing plugin: %q", log.n(), log.causes)
	}
}

// TestOneDeathCountsOneRestart kills the plugin while four Score calls are
// in flight in it: every call completes on the restarted process, and the
// death counts as one restart (Restarts, OnRestart), not one per call.
func TestOneDeathCountsOneRestart(t *testing.T) {
	ctx := context.Background()
	var log restartLog
	cfg := selfConfig("judge")
	cfg.OnRestart = log.hook
	j, err := host.StartJudge(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	pidFile := filepath.Join(t.TempDir(), "pid")
	conf, _ := json.Marshal(fakejudge.Config{Mode: "block-process-once", PIDFile: pidFile})
	if ds, err := j.Configure(ctx, conf); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	const calls = 4
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			_, errs[i] = j.Score(ctx, []spec.Item{{ID: "x", Response: "a b c"}})
		})
	}
	pid := waitPID(t, pidFile)
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(pidFile + ".calls")
		if strings.Count(string(b), "\n") == calls {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %q calls reached the plugin", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d after the kill: %v", i, err)
		}
	}
	if j.Restarts() != 1 || log.n() != 1 {
		t.Fatalf("one death counted as %d restarts (OnRestart %d: %q), want 1", j.Restarts(), log.n(), log.causes)
	}
}
