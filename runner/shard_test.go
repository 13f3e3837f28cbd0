package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// loadServerSpec loads the candidates experiment (9 units) with its
// speaker served by server jobs (a slurm-server endpoint).
func loadServerSpec(t *testing.T) *schema.Loaded {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/served"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
rosters: support: personas.emotional_support
endpoints: speaker: {kind: "slurm-server", model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s",
	server: {command: ["serve", "--port", "$MASCOT_PORT"], replicas: 2, slurm: gpus: 1}}
stages: cand: {kind: "candidates", dataset: "es", roster: "support", k: 2}
`
	l := testspec.Load(t, src)
	return l
}

// fakeStarter is a ServerStarter a test wires in: each "server" is the
// same fake vLLM.
type fakeStarter struct {
	url            string
	started, stops int
	server         schema.EndpointServer
}

func (f *fakeStarter) StartEndpoint(_ context.Context, _, name string, server schema.EndpointServer) (string, func(context.Context) error, error) {
	f.started++
	f.server = server
	return f.url, func(context.Context) error { f.stops++; return nil }, nil
}

// TestServerStarterGetsTheServerBlock: the runner starts replicas of a
// served endpoint through whatever ServerStarter the caller wired, hands
// it the endpoint's server block as declared, and stops each at the end.
func TestServerStarterGetsTheServerBlock(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	st := &fakeStarter{url: srv.URL()}
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: loadServerSpec(t), Store: openStore(t),
		RunsDir: t.TempDir(), Services: runner.Services{Servers: st}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 9 || st.started != 2 || st.stops != 2 {
		t.Fatalf("ran %d units with %d servers started, %d stopped; want 9, 2, 2", sum.Ran, st.started, st.stops)
	}
	if strings.Join(st.server.Command, " ") != "serve --port $MASCOT_PORT" || st.server.Slurm.GPUs != 1 {
		t.Fatalf("starter got server block %+v", st.server)
	}
}

// TestShardRunUsesPublishedEndpoints: a shard run (a worker of the
// controller's run) starts no servers; it calls the ones the controller's
// servers published in the controller's run directory.
func TestShardRunUsesPublishedEndpoints(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	runDir := t.TempDir()
	eps := filepath.Join(runDir, "endpoints", "speaker")
	if err := os.MkdirAll(eps, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(eps, "101.json"), []byte(`{"url": "`+srv.URL()+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: loadServerSpec(t), Store: openStore(t),
		RunsDir: t.TempDir(), Shard: &runner.Shard{Stage: "cand", Part: 0, Parts: 1, RunDir: runDir}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 9 || srv.Counters().TokensOut == 0 {
		t.Fatalf("shard ran %d units, endpoint answered %d tokens", sum.Ran, srv.Counters().TokensOut)
	}
}
