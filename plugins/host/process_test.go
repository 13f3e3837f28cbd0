package host_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/internal/fakejudge"
	"mascot.dev/mascot/plugins/spec"
)

// Level b: the re-executed test binary is the plugin process.

func TestProcessScoreAndMetric(t *testing.T) {
	ctx := context.Background()
	j, err := host.StartJudge(ctx, selfConfig("judge"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := j.Score(ctx, []spec.Item{{ID: "x", Response: "three words here"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results[0].Scores[0].Normalized != 50 { // raw 3 -> 100*2/4
		t.Fatalf("score: %+v", res.Results[0])
	}
	m, err := host.StartMetric(ctx, selfConfig("metric"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mr, err := m.Compute(ctx, []spec.Episode{{ID: "e", Turns: []spec.Turn{{Text: "a b c"}}}})
	if err != nil || mr.Values[0].Values["words"] != 3 {
		t.Fatalf("metric: %+v %v", mr, err)
	}
}

func TestKilledMidBatchRestartsAndCompletes(t *testing.T) {
	ctx := context.Background()
	j, err := host.StartJudge(ctx, selfConfig("judge"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg, _ := json.Marshal(fakejudge.Config{Mode: "block-once", PIDFile: pidFile})
	if ds, err := j.Configure(ctx, cfg); err != nil || len(ds) > 0 {
		t.Fatalf("configure: %v %v", ds, err)
	}
	// Kill the plugin while it holds the batch.
	go func() {
		pid := waitPID(t, pidFile)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}()
	items := []spec.Item{{ID: "1", Response: "a"}, {ID: "2", Response: "a b"}, {ID: "3", Response: "a b c"}}
	res, err := j.Score(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if j.Restarts() != 1 {
		t.Fatalf("restarts = %d, want 1", j.Restarts())
	}
	for i, r := range res.Results {
		if r.Failed || r.Scores[0].Raw != float64(i+1) {
			t.Fatalf("item %d after restart: %+v", i, r)
		}
	}
}

// waitPID polls for the pid file a plugin writes (an event, not a timing
// assertion: the deadline only stops a broken test from hanging).
func waitPID(t *testing.T, path string) int {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("no pid file %s", path)
	return -1
}

func TestChecksumPinning(t *testing.T) {
	ctx := context.Background()
	cfg := selfConfig("judge")
	cfg.SHA256 = strings.Repeat("00", 32)
	_, err := host.StartJudge(ctx, cfg)
	if !errors.Is(err, host.ErrChecksumMismatch) || !strings.Contains(err.Error(), "refusing to start judge plugin fake-judge") {
		t.Fatalf("err = %v", err)
	}
	f, _ := os.Open(os.Args[0])
	h := sha256.New()
	_, _ = io.Copy(h, f)
	f.Close()
	cfg.SHA256 = hex.EncodeToString(h.Sum(nil))
	j, err := host.StartJudge(ctx, cfg)
	if err != nil {
		t.Fatalf("matching checksum refused: %v", err)
	}
	j.Close()
}

func TestCallAfterCloseAndReadableErrors(t *testing.T) {
	ctx := context.Background()
	j, err := host.StartJudge(ctx, selfConfig("judge"))
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := j.Score(ctx, []spec.Item{{ID: "a"}}); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("err = %v", err)
	}
	cfg := selfConfig("judge")
	cfg.Command = filepath.Join(t.TempDir(), "missing")
	if _, err := host.StartJudge(ctx, cfg); err == nil || !strings.Contains(err.Error(), "starting judge plugin fake-judge") {
		t.Fatalf("err = %v", err)
	}
	// A metric plugin asked to judge: Unimplemented, in words.
	mcfg := selfConfig("metric")
	_, err = host.StartJudge(ctx, mcfg)
	var ce *host.CallError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "judge plugin fake-metric does not implement Describe") {
		t.Fatalf("err = %v", err)
	}
}

// TestPluginDiesWithHost SIGKILLs a host process and checks that its plugin
// does not survive it.
func TestPluginDiesWithHost(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MASCOT_TEST_HOSTPROC="+pidFile)
	cmd.Stderr = os.Stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("host process said %q", line)
	}
	pid := waitPID(t, pidFile)
	if !alive(pid) {
		t.Fatalf("plugin %d not running before the host was killed", pid)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("plugin %d survived the SIGKILL of its host", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
