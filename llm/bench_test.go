package llm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

// TestHelperFakeServer is not a test: the benchmark re-executes the test
// binary with FAKEVLLM_HELPER=1 to run the fake server in its own process,
// so that the client's CPU time per request can be measured alone.
func TestHelperFakeServer(t *testing.T) {
	if os.Getenv("FAKEVLLM_HELPER") != "1" {
		return
	}
	lat, _ := time.ParseDuration(os.Getenv("FAKEVLLM_LATENCY"))
	s := fakevllm.Start(nil, fakevllm.Options{Latency: fakevllm.Latency{Base: lat}})
	fmt.Println("URL", s.URL())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	s.Close()
}

// benchServer starts the fake server in a child process.
func benchServer(b *testing.B, latency time.Duration) (url string, stop func() time.Duration) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFakeServer$")
	cmd.Env = append(os.Environ(), "FAKEVLLM_HELPER=1", "FAKEVLLM_LATENCY="+latency.String())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "URL ") {
		b.Fatalf("helper server: %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "URL ")), func() time.Duration {
		_ = stdin.Close()
		_ = cmd.Wait()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		return 0
	}
}

func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkChatThroughput: 64 concurrent callers against a fake server
// (separate process) with 20 ms latency and endpoint concurrency 64. The
// ideal rate is 64 / 20 ms = 3,200 req/s. Reports req/s, its share of the
// ideal, and CPU time per request of the client and of the server.
//
//	go test -run '^$' -bench ChatThroughput -benchtime 20000x ./llm
func BenchmarkChatThroughput(b *testing.B) {
	const conc = 64
	url, stop := benchServer(b, 20*time.Millisecond)
	c, err := New(Config{Default: "bench", Endpoints: []Endpoint{{Name: "bench", URLs: []string{url}, Model: "Qwen/Qwen3-8B",
		Concurrency: conc, Timeout: 10 * time.Second}}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := userReq("speaker", "How was the meeting about the remote control design?")
	req.Temperature, req.MaxTokens = fp(0), 64
	// warm the connection pool
	var wg sync.WaitGroup
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = c.Chat(context.Background(), req) }()
	}
	wg.Wait()

	var next, failed atomic.Int64
	b.ResetTimer()
	cpu0, t0 := cpuSelf(), time.Now()
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if _, err := c.Chat(context.Background(), req); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuSelf()-cpu0
	b.StopTimer()
	serverCPU := stop()
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(100*rate/3200, "%ideal")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "client-cpu-µs/req")
	b.ReportMetric(float64(serverCPU.Microseconds())/float64(b.N+conc), "server-cpu-µs/req")
	if failed.Load() > 0 {
		b.Errorf("%d requests failed", failed.Load())
	}
}
