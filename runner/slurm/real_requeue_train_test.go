package slurm

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// TestSlurmRequeueResumesTraining: a training stage whose job gets SIGUSR1
// before its one-minute time limit requeues itself, restarts, and resumes
// from its checkpoint instead of starting over; the run completes.
func TestSlurmRequeueResumesTraining(t *testing.T) {
	needSlurm(t)
	if os.Getenv("MASCOT_SLURM_SLOW") != "1" {
		t.Skip("set MASCOT_SLURM_SLOW=1 for the requeue test (about 2 minutes)")
	}
	// USR1 15 s into a one-minute job (Slurm may send it earlier). 3,000
	// steps take about 30 s at the trainer's speed on two cores (400 had
	// ended before the signal), so a run takes one requeue or more.
	t.Setenv("MASCOT_SLURM_SIGNAL", "45")
	bin := mascotBinary(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.cue")
	src := `package spec

name: "test/slurm-requeue"
executor: kind: "slurm"
stages: pretrain: {kind: "pretrain", text: "embed:demo/data/pretrain.txt", max_steps: 3000, batch_size: 8,
	max_length: 96, checkpoint_every: 10, slurm: time: "1"}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	// Slurm delays a requeued job's start; release it once it has waited
	// on two polls, so that it is not relaunched within the second of its
	// first run's kill (slurmd refuses that launch: TestSlurmRequeueIngestsOnce).
	go func() {
		waiting := map[string]bool{}
		for ctx.Err() == nil {
			out, _ := exec.Command("squeue", "-h", "-o", "%i %T %r %j").Output()
			for _, line := range strings.Split(string(out), "\n") {
				f := strings.Fields(line)
				if len(f) == 4 && f[1] == "PENDING" && f[2] == "BeginTime" && strings.HasPrefix(f[3], "mascot-") {
					if waiting[f[0]] {
						_ = exec.Command("scontrol", "update", "jobid="+f[0], "StartTime=now").Run()
					}
					waiting[f[0]] = !waiting[f[0]] // a later requeue waits two polls again
				}
			}
			time.Sleep(time.Second)
		}
	}()
	cmd := exec.CommandContext(ctx, bin, "run", spec, "--db", db, "--runs-dir", filepath.Join(dir, "runs"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("mascot run: %v\n%s", err, out.String())
	}
	sdb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var meta string
	if err := sdb.QueryRow(`SELECT meta_json FROM artifacts WHERE kind = 'model'`).Scan(&meta); err != nil {
		t.Fatalf("no model artifact: %v\n%s", err, out.String())
	}
	var m struct {
		ResumedFrom int `json:"resumed_from"`
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "runs", "slurm", "*", "*", "logs", "*"))
	var all strings.Builder
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "requeueing") {
		t.Fatalf("the job never requeued itself; logs:\n%s", all.String())
	}
	if m.ResumedFrom <= 0 || m.ResumedFrom >= 3000 {
		t.Fatalf("training resumed from step %d, want a checkpoint between 1 and 2999\n%s", m.ResumedFrom, fmt.Sprint(meta))
	}
}
