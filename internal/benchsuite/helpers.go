package benchsuite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"mascot.dev/mascot/internal/fakevllm"
)

// helperEnv names the helper a re-executed binary is to be.
const helperEnv = "MASCOT_BENCHSUITE_HELPER"

// HelperMain runs the helper process the environment asks for (the fake
// server or the busy loop, until its stdin closes; or a measured command,
// runMeasured) and reports whether it did; a main or TestMain calls it
// first and exits when it returns true.
func HelperMain() bool {
	switch os.Getenv(helperEnv) {
	case "server":
		lat, err := time.ParseDuration(os.Getenv(helperEnv + "_LATENCY"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchsuite helper:", err)
			os.Exit(2)
		}
		// The server stands in for one on another machine but shares the
		// measured client's two cores: its collector gets room, as the
		// runner's does (gcpace), so that it takes less of them
		// (docs/benchmarks.md has what it took at the default).
		debug.SetGCPercent(400)
		s := fakevllm.Start(nil, fakevllm.Options{Latency: fakevllm.Latency{Base: lat}})
		fmt.Println("URL", s.URL())
		_, _ = io.Copy(io.Discard, os.Stdin)
		s.Close()
		return true
	case "run":
		helpRun()
		return true
	case "fresh":
		helpFresh()
		return true
	case "busy":
		// One core kept busy, as a second user's job would.
		runtime.GOMAXPROCS(1)
		go func() {
			x := uint64(1)
			for {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}()
		fmt.Println("URL busy")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return true
	}
	return false
}

// helper starts the running binary as helper kind and returns the line it
// printed after "URL " (the server's URL, or a run helper's usage) and a
// function that ends it.
func helper(kind string, env ...string) (string, func(), error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+kind), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting the %s helper: %w", kind, err)
	}
	stop := func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "URL ") {
		stop()
		return "", nil, fmt.Errorf("the %s helper said %q: %v", kind, line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "URL ")), stop, nil
}

// askHelper starts helper kind with spec, as JSON, in the environment
// variable envKey, and decodes the JSON line it prints into out.
func askHelper(kind, envKey string, spec, out any) error {
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	line, stop, err := helper(kind, envKey+"="+string(b))
	if err != nil {
		return err
	}
	stop()
	if err := json.Unmarshal([]byte(line), out); err != nil {
		return fmt.Errorf("the %s helper said %q: %w", kind, line, err)
	}
	return nil
}
