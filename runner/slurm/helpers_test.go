package slurm

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// TestMain lets the test binary stand in for `mascot stage-exec` inside
// jobs: it commits each unit of its shard with one candidate row. The env
// FAKE_FAIL_SHARD=i makes shard i exit 3 first; FAKE_STAGE_SLEEP=1 makes
// it start a sleeping grandchild in its own session and wait;
// FAKE_REQUEUE=1 makes a task's first run (no SLURM_RESTART_COUNT) write
// shards/<i>/started and sleep until requeued; FAKE_WAIT_FILE=path makes
// it write started and wait for path to exist; FAKE_FAIL_STAGE=key makes
// that stage's tasks exit 3.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "stage-exec" {
		if err := fakeStageExec(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "fake stage-exec:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	if len(os.Args) > 2 && os.Args[1] == "fake-server" {
		// A stand-in for vllm serve: /health and /v1/models on the port.
		mux := http.NewServeMux()
		mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {})
		mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"fake-model","pid":%d}]}`, os.Getpid())
		})
		fmt.Fprintln(os.Stderr, http.ListenAndServe("127.0.0.1:"+os.Args[2], mux))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func fakeStageExec(args []string) error {
	fs := flag.NewFlagSet("stage-exec", flag.ContinueOnError)
	units := fs.String("units", "", "")
	shard := fs.Int("shard", 0, "")
	input := fs.String("input", "", "")
	out := fs.String("out", "", "")
	fs.String("spec", "", "")
	stage := fs.String("stage", "", "")
	runDir := fs.String("run-dir", "", "")
	fs.Int("shards", 0, "")
	fs.String("after", "", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if os.Getenv("FAKE_FAIL_STAGE") == *stage {
		return fmt.Errorf("stage %s told to fail", *stage)
	}
	fmt.Fprintf(os.Stderr, "CUDA_VISIBLE_DEVICES=%s SLURM_RESTART_COUNT=%s\n", os.Getenv("CUDA_VISIBLE_DEVICES"), os.Getenv("SLURM_RESTART_COUNT"))
	if os.Getenv("FAKE_FAIL_SHARD") == strconv.Itoa(*shard) {
		return fmt.Errorf("shard %d told to fail", *shard)
	}
	if os.Getenv("FAKE_REQUEUE") == "1" && os.Getenv("SLURM_RESTART_COUNT") == "" {
		// First run: say so and wait to be requeued.
		os.WriteFile(filepath.Join(*out, "started"), nil, 0o644)
		time.Sleep(120 * time.Second)
		return fmt.Errorf("was not requeued")
	}
	if w := os.Getenv("FAKE_WAIT_FILE"); w != "" {
		os.WriteFile(filepath.Join(*out, "started"), nil, 0o644)
		for {
			if _, err := os.Stat(w); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if os.Getenv("FAKE_STAGE_DELAY") == "1" {
		time.Sleep(2 * time.Second)
	}
	if os.Getenv("FAKE_STAGE_SLEEP") == "1" {
		gc := exec.Command("setsid", "sleep", "300")
		gc.Env = append(os.Environ(), "MASCOT_FAKE_GRANDCHILD=1")
		if err := gc.Start(); err != nil {
			return err
		}
		os.WriteFile(filepath.Join(*out, "grandchild.pid"), []byte(strconv.Itoa(gc.Process.Pid)), 0o644)
		return gc.Wait()
	}
	var shards [][]string
	b, err := os.ReadFile(*units)
	if err != nil {
		return err
	}
	if err := jsonUnmarshal(b, &shards); err != nil {
		return err
	}
	db := filepath.Join(*out, "shard.db")
	if err := copyFile(*input, db); err != nil {
		return err
	}
	s, err := results.Open(db)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.CreateRun(context.Background(), results.Run{ID: "job", Name: "job"}); err != nil {
		return err
	}
	if *runDir != "" {
		// Files a stage writes go to the controller's run directory.
		os.MkdirAll(filepath.Join(*runDir, *stage), 0o755)
		os.WriteFile(filepath.Join(*runDir, *stage, "shard-"+strconv.Itoa(*shard)), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(*out, "counters.json"), []byte(fmt.Sprintf(`{"fake_rows": %d}`, len(shards[*shard]))), 0o644)
	for _, fp := range shards[*shard] {
		err := s.CommitUnit(context.Background(), results.Unit{Fingerprint: fp, Kind: "fake", StageKey: *stage, RunID: "job"},
			func(tx *results.Tx) error {
				_, err := tx.InsertCandidate(results.Candidate{ContextID: fp, Text: "from shard " + strconv.Itoa(*shard)})
				return err
			})
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// fixture is a controller store with a run and n pending units of stage
// gen; slurm is the experiment's executor.slurm block the job reads.
type fixture struct {
	store *results.Store
	job   *runner.ExecJob
	dir   string
	slurm *schema.SlurmOptions
}

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	dir := t.TempDir()
	s, err := results.Open(filepath.Join(dir, "mascot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateRun(context.Background(), results.Run{ID: "run-1", Name: "t"}); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "runs", "run-1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := &schema.SlurmOptions{}
	exp := &schema.Experiment{Executor: schema.Executor{Kind: "slurm", Slurm: opts},
		Stages: map[string]schema.Stage{"gen": {Key: "gen", Kind: "fake", Raw: []byte(`{"kind": "fake"}`)}}}
	job := &runner.ExecJob{RunID: "run-1", RunDir: runDir, StageKey: "gen", Kind: "fake",
		Fingerprint: "0123456789abcdef0123", Store: s, Experiment: exp}
	for i := range n {
		job.Pending = append(job.Pending, runner.Unit{Key: strconv.Itoa(i), Fingerprint: fmt.Sprintf("fp-%02d", i)})
	}
	return &fixture{store: s, job: job, dir: dir, slurm: opts}
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := f.store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// testExecutor runs the test binary as the job's mascot.
func testExecutor(t *testing.T) *Executor {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The fake Slurm never lists a task ended while it is being requeued,
	// so a failure may count after two polls; needSlurm restores the
	// default for the real one.
	return &Executor{Binary: bin, Poll: pollForTests, EndSettle: time.Nanosecond, MaxShards: 3}
}
