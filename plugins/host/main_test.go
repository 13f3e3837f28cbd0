package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/internal/fakejudge"
	"mascot.dev/mascot/plugins/sdk"
)

// The test binary doubles as a plugin (helper-process trick): when
// MASCOT_TEST_PLUGIN is set it serves the fake judge or metric instead of
// running tests; MASCOT_TEST_HOSTPROC makes it a host that starts a plugin
// and then waits to be killed.
func TestMain(m *testing.M) {
	if f := os.Getenv("MASCOT_TEST_DIE_AT_START"); f != "" {
		dieAtStart(f)
	}
	switch os.Getenv("MASCOT_TEST_PLUGIN") {
	case "envdump":
		if err := os.WriteFile(os.Getenv("MASCOT_TEST_ENVFILE"), []byte(strings.Join(os.Environ(), "\n")), 0o600); err != nil {
			exit(err)
		}
		exit(sdk.ServeJudge(&fakejudge.Judge{}))
	case "judge":
		exit(sdk.ServeJudge(&fakejudge.Judge{}))
	case "metric":
		exit(sdk.ServeMetric(fakejudge.Metric{}))
	}
	if os.Getenv("MASCOT_TEST_HOSTPROC") != "" {
		exit(runHostProc(os.Getenv("MASCOT_TEST_HOSTPROC")))
	}
	os.Exit(m.Run())
}

// dieAtStart SIGKILLs this plugin process before its handshake while the
// file names fewer than MASCOT_TEST_DIE_TIMES deaths (one line each): a
// plugin killed during its handshake, as often as the test asks.
func dieAtStart(file string) {
	want, _ := strconv.Atoi(os.Getenv("MASCOT_TEST_DIE_TIMES"))
	b, _ := os.ReadFile(file)
	if strings.Count(string(b), "\n") >= want {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		exit(err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	f.Close()
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runHostProc starts a judge plugin that reports its pid, says "ready" on
// stdout and sleeps until it is killed.
func runHostProc(pidFile string) error {
	ctx := context.Background()
	j, err := host.StartJudge(ctx, selfConfig("judge"))
	if err != nil {
		return err
	}
	cfg, _ := json.Marshal(fakejudge.Config{ReportPID: true, PIDFile: pidFile})
	if _, err := j.Configure(ctx, cfg); err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "ready")
	w.Flush()
	time.Sleep(time.Hour)
	return nil
}

// selfConfig runs this test binary as a plugin of the given kind.
func selfConfig(kind string) host.Config {
	return host.Config{
		Name:           "fake-" + kind,
		Command:        os.Args[0],
		Env:            []string{"MASCOT_TEST_PLUGIN=" + kind, "MASCOT_TEST_HOSTPROC="},
		Stderr:         os.Stderr,
		RestartBackoff: 10 * time.Millisecond,
	}
}
