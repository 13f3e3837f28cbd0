package slurm

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/schema"
)

// TestSlurmServerJobAndClients is case 12: a server job (a stand-in for
// vllm serve, asking for a fake GPU) publishes its endpoint file once its
// /health answers; a client job submitted with --dependency=after:<server>
// reads the endpoint through it; Stop scancels the server and nothing
// answers on its port afterwards.
func TestSlurmServerJobAndClients(t *testing.T) {
	e := needSlurm(t)
	t.Setenv("MASCOT_SERVER_HOST", "127.0.0.1") // the one node; sbatch passes it on
	runDir := t.TempDir()
	srv, err := e.StartServer(context.Background(), runDir, ServerSpec{Name: "speaker",
		Command: []string{e.Binary, "fake-server", "$MASCOT_PORT"}, Options: schema.SlurmOptions{GPUs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			srv.Stop(context.Background())
		}
	})
	if b, err := os.ReadFile(filepath.Join(runDir, "endpoints", "speaker", srv.JobID+".json")); err != nil || !strings.Contains(string(b), srv.URL) {
		t.Fatalf("endpoint file: %s %v", b, err)
	}
	get := func() (string, error) {
		resp, err := http.Get(srv.URL + "/models")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if body, err := get(); err != nil || !strings.Contains(body, "fake-model") {
		t.Fatalf("GET %s/models: %q %v", srv.URL, body, err)
	}
	// A client job that starts once the server job runs.
	out := filepath.Join(t.TempDir(), "client.out")
	cid, err := e.CLI.Submit(context.Background(), "--dependency=after:"+srv.JobID, "--output=/dev/null",
		"--wrap=curl -sf "+srv.URL+"/models > "+out)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		js, err := e.CLI.Show(context.Background(), cid)
		if err == nil && len(js) == 1 && Terminal(js[0].State) {
			if js[0].State != "COMPLETED" {
				t.Fatalf("client job %s: %s", cid, js[0].State)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("client job did not end")
		}
		time.Sleep(300 * time.Millisecond)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "fake-model") {
		t.Fatalf("client job read %q (%v)", b, err)
	}
	if err := srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for {
		js, err := e.CLI.Show(context.Background(), srv.JobID)
		if err == nil && len(js) == 1 && Terminal(js[0].State) {
			if js[0].State != "CANCELLED" {
				t.Fatalf("server job ended %s, want CANCELLED", js[0].State)
			}
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	// The server process is gone with its job.
	for i := 0; ; i++ {
		if _, err := get(); err != nil {
			break
		}
		if i > 50 {
			t.Fatal("the server still answers after scancel")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := os.Stat(srv.File); !os.IsNotExist(err) {
		t.Fatalf("endpoint file left after Stop: %v", err)
	}
}
