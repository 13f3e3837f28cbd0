package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mascot.dev/mascot/internal/safepath"
	"mascot.dev/mascot/schema"
)

// ServerSpec is a long-running job serving an OpenAI-compatible endpoint
// (a vLLM server) for the stages of a run.
type ServerSpec struct {
	Name string // the endpoint's name
	// Command serves on port $MASCOT_PORT (e.g. vllm serve MODEL
	// --enable-lora --port $MASCOT_PORT); words are passed through the
	// shell, so $MASCOT_PORT expands.
	Command []string
	Options schema.SlurmOptions
}

// Server is a submitted server job whose endpoint is up.
type Server struct {
	JobID string
	URL   string // http://HOST:PORT/v1
	File  string // the endpoint file it published
	cli   *CLI
}

// serverScript starts the command, waits for its /health, then publishes
// {"url": ...} atomically in the endpoint file and waits; on TERM
// (scancel, end of the run) the command's process group goes.
func serverScript(s ServerSpec, dir, file string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	for _, a := range Directives(ScriptSpec{Name: "mascot-server-" + s.Name, Dir: dir, Shards: 1, Options: s.Options}) {
		if !strings.HasPrefix(a, "--signal=") {
			fmt.Fprintf(&b, "#SBATCH %s\n", a)
		}
	}
	fmt.Fprintf(&b, `set -u
export MASCOT_PORT=$((20000 + ${SLURM_JOB_ID:-0} %% 20000))
host=${MASCOT_SERVER_HOST:-$(hostname)}
setsid bash -c %s &
child=$!
trap 'kill -TERM -- -"$child" 2>/dev/null; wait "$child"; exit 0' TERM
until curl -sf "http://127.0.0.1:$MASCOT_PORT/health" >/dev/null; do
  kill -0 "$child" 2>/dev/null || { wait "$child"; exit $?; }
  sleep 1
done
printf '{"url": "http://%%s:%%s/v1", "job_id": "%%s"}\n' "$host" "$MASCOT_PORT" "${SLURM_JOB_ID:-}" > %s.tmp
mv %s.tmp %s
wait "$child"
`, shq(strings.Join(s.Command, " ")), shq(file), shq(file), shq(file))
	return b.String()
}

// StartServer submits a server job for the run in runDir and waits until
// it has published its endpoint in runDir/endpoints/<name>/<job id>.json;
// a job that ends first is an error. Stop scancels it.
func (e *Executor) StartServer(ctx context.Context, runDir string, s ServerSpec) (*Server, error) {
	joined, err := safepath.Join(runDir, "endpoints", s.Name)
	if err != nil {
		return nil, fmt.Errorf("choosing the directory of endpoint %q: %w", s.Name, err)
	}
	dir, err := filepath.Abs(joined)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("creating endpoint directory: %w", err)
	}
	script := filepath.Join(dir, "server.sh")
	pending := filepath.Join(dir, "pending.json")
	// The job's id is not known before sbatch returns: the script
	// publishes to a fixed name, renamed to <job id>.json here.
	if err := os.WriteFile(script, []byte(serverScript(s, dir, pending)), 0o755); err != nil {
		return nil, fmt.Errorf("writing server job script: %w", err)
	}
	e.Submits.Add(1)
	id, err := e.CLI.Submit(ctx, script)
	if err != nil {
		return nil, fmt.Errorf("submitting server for endpoint %s: %w", s.Name, err)
	}
	srv := &Server{JobID: id, File: filepath.Join(dir, id+".json"), cli: &e.CLI}
	for {
		if b, err := os.ReadFile(pending); err == nil {
			var ep struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(b, &ep) == nil && ep.URL != "" {
				srv.URL = ep.URL
				if err := os.Rename(pending, srv.File); err != nil {
					_ = srv.Stop(context.WithoutCancel(ctx))
					return nil, fmt.Errorf("publishing endpoint: %w", err)
				}
				return srv, nil
			}
		}
		if js, err := e.CLI.Show(ctx, id); err == nil && len(js) == 1 && Terminal(js[0].State) {
			return nil, fmt.Errorf("server job %s for endpoint %s ended (%s) before its endpoint was up; log: %s",
				id, s.Name, StateMessage(js[0].State, js[0].Reason), filepath.Join(dir, "logs"))
		}
		select {
		case <-ctx.Done():
			_ = srv.Stop(context.WithoutCancel(ctx))
			return nil, ctx.Err()
		case <-time.After(e.poll()):
		}
	}
}

// Stop scancels the server job and removes its endpoint file.
func (s *Server) Stop(ctx context.Context) error {
	_ = os.Remove(s.File)
	return s.cli.Cancel(ctx, s.JobID)
}

// StartEndpoint implements runner.ServerStarter: one server job per call
// (its command and slurm block from the endpoint's server block), its URL,
// and the function that scancels it.
func (e *Executor) StartEndpoint(ctx context.Context, runDir, name string, server schema.EndpointServer) (string, func(context.Context) error, error) {
	s, err := e.StartServer(ctx, runDir, ServerSpec{Name: name, Command: server.Command, Options: server.Slurm})
	if err != nil {
		return "", nil, err
	}
	return s.URL, s.Stop, nil
}
