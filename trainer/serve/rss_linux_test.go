//go:build linux

package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hostileRSSLimitKB is the documented bound (docs/serve.md) on the
// peak resident memory of `mascot serve` over the tiny test model, with the
// default limits, while it answers the hostile requests below.
const hostileRSSLimitKB = 128 << 10

// procStatusKB reads one "Name: N kB" field of /proc/PID/status.
func procStatusKB(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// startServeProcess runs `mascot serve` over the tiny model as its own
// process (the test binary re-executed) with extra flags, and returns its
// pid, its base URL and the RSS at which a watchdog killed it: the watchdog
// kills the server as soon as its RSS passes limitKB, so a regression fails
// instead of exhausting memory. env is added to its environment.
func startServeProcess(t *testing.T, limitKB int, env []string, extra ...string) (int, string, *atomic.Int64) {
	t.Helper()
	args, err := json.Marshal(append([]string{"--model", tinyModelDir(t), "--addr", "127.0.0.1:0", "--served-model-name", "tiny"}, extra...))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+string(args), "GOMAXPROCS=2"), env...)
	cmd.Stderr = io.Discard
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's banner: %v", err)
	}
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	killedAtKB := &atomic.Int64{}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if kb, err := procStatusKB(pid, "VmRSS"); err == nil && kb > limitKB {
				killedAtKB.Store(int64(kb))
				_ = cmd.Process.Signal(syscall.SIGKILL)
				return
			}
		}
	}()
	return pid, url, killedAtKB
}

// TestHostileRequestsStayUnderMemoryBound runs `mascot serve` as its own
// process, sends requests that used to make it allocate in proportion to
// their numbers (n = 100,000,000; a 10 MB prompt; many prompts times a
// large n) and checks each is a 400 and the process's peak RSS (VmHWM)
// stays under hostileRSSLimitKB.
func TestHostileRequestsStayUnderMemoryBound(t *testing.T) {
	pid, url, killedAtKB := startServeProcess(t, hostileRSSLimitKB, nil)
	send := func(path string, body any) (int, []byte) {
		t.Helper()
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(url+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatalf("POST %s: %v (watchdog killed the server at %d kB RSS, bound %d kB)", path, err, killedAtKB.Load(), hostileRSSLimitKB)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}

	huge := strings.Repeat("a", 10<<20)
	many := make([]string, 2000)
	for i := range many {
		many[i] = "hello"
	}
	ids := make([]int, 1<<20)
	for i := range ids {
		ids[i] = 'a'
	}
	hostile := []struct {
		name, path string
		body       map[string]any
		want       string // in the error message
	}{
		{"n of 100 million", "/chat/completions", map[string]any{"messages": msgs("hi"), "n": 100_000_000, "max_tokens": 1}, "n must be at most 128"},
		{"10 MB completion prompt", "/completions", map[string]any{"prompt": huge, "max_tokens": 1}, "larger than this server's limit of 4194304 bytes"},
		{"10 MB chat message", "/chat/completions", map[string]any{"messages": msgs(huge), "max_tokens": 1}, "larger than this server's limit"},
		{"2000 prompts times n 128", "/completions", map[string]any{"prompt": many, "n": 128, "max_tokens": 16}, "per-request limit of 65536"},
		{"n 128 filling the context", "/chat/completions", map[string]any{"messages": msgs("hi"), "n": 128}, "per-request limit of 65536"},
		{"a million prompt token ids", "/completions", map[string]any{"prompt": ids, "max_tokens": 1}, "holds 1048576 token ids, more than this server's per-request limit of 65536"},
		{"max_tokens of 10^15", "/chat/completions", map[string]any{"messages": msgs("hi"), "n": 128, "max_tokens": 1_000_000_000_000_000}, "maximum context length"},
	}
	for _, h := range hostile {
		code, b := send(h.path, h.body)
		if code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %.300s", h.name, code, b)
			continue
		}
		if typ, msg, _ := apiErr(t, b); typ != "BadRequestError" || !strings.Contains(msg, h.want) {
			t.Errorf("%s: %s %q, want BadRequestError containing %q", h.name, typ, msg, h.want)
		}
	}
	if code, b := send("/chat/completions", map[string]any{"messages": msgs("hi"), "n": 4, "max_tokens": 4}); code != http.StatusOK {
		t.Errorf("an ordinary request after the hostile ones: %d %s", code, b)
	}
	hwm, err := procStatusKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server peak RSS (VmHWM) %d kB, bound %d kB", hwm, hostileRSSLimitKB)
	if hwm > hostileRSSLimitKB {
		t.Errorf("server peak RSS %d kB over the bound %d kB", hwm, hostileRSSLimitKB)
	}
}
