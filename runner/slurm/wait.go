package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// shardOutcome is how one array task ended.
type shardOutcome struct {
	final bool
	ok    bool
	msg   string    // why it failed
	miss  int       // polls with neither a Slurm record nor an exitcode file
	since time.Time // when the polls in a row that show it ended without success began
	note  string    // last pending message logged
}

// forgetPolls is how many polls a job may be missing from Slurm without an
// exitcode file before it counts as lost (squeue can lag a submit, and
// NFS can lag the file).
const forgetPolls = 3

// finish waits for an attempt's tasks, ingests every shard database they
// left and marks the attempt ingested. It returns the units of want it
// ingested, and a message per failed shard.
func (e *Executor) finish(ctx context.Context, job *runner.ExecJob, a *Attempt, want map[string]bool, log *slog.Logger) (int, map[int]string, error) {
	outs, err := e.wait(ctx, a, log)
	if err != nil {
		return 0, nil, err
	}
	ran := 0
	failed := map[int]string{}
	for i := range a.Shards {
		if !outs[i].ok {
			failed[i] = outs[i].msg
		}
		db := filepath.Join(a.ShardDir(i), "shard.db")
		if _, err := os.Stat(db); err != nil {
			continue
		}
		st, err := results.Ingest(ctx, job.Store, db, job.RunID)
		if err != nil {
			return ran, failed, err
		}
		if len(st.Units) > 0 {
			// Counted once: a shard ingested again copies no units.
			copyCounters(job, a.ShardDir(i), log)
			if err := copyLatency(ctx, job, db); err != nil {
				return ran, failed, err
			}
		}
		for _, fp := range st.Units {
			if want[fp] {
				ran++
				if job.Done != nil {
					job.Done()
				}
			}
		}
		if !outs[i].ok {
			continue
		}
		// A shard that exited 0 may still have failed units (non-strict).
		if msg := shardUnitError(db, a.Shards[i]); msg != "" {
			failed[i] = msg
		}
	}
	a.Ingested = true
	if err := a.save(); err != nil {
		return ran, failed, err
	}
	return ran, failed, nil
}

// copyCounters adds the counters a shard's stage recorded (counters.json,
// written by stage-exec) to the stage's counters in the controller's run.
func copyCounters(job *runner.ExecJob, dir string, log *slog.Logger) {
	b, err := os.ReadFile(filepath.Join(dir, "counters.json"))
	if err != nil || job.Count == nil {
		return
	}
	var c map[string]int64
	if err := json.Unmarshal(b, &c); err != nil {
		log.Warn("unreadable shard counters", "dir", dir, "err", err)
		return
	}
	for k, v := range c {
		if results.IsLatencyCounter(k) {
			continue // a shard's percentile is not a count: sums of them mean nothing
		}
		job.Count(k, v)
	}
}

// copyLatency adds the latency histograms a shard's stage recorded to the
// stage in the controller's run, so its percentiles are over every shard's
// requests (as a local run's are over all of its own).
func copyLatency(ctx context.Context, job *runner.ExecJob, db string) error {
	s, err := results.Open(db)
	if err != nil {
		return fmt.Errorf("opening shard database: %w", err)
	}
	defer s.Close()
	hist, err := s.StageLatency(ctx, job.StageKey)
	if err != nil {
		return fmt.Errorf("copying shard latencies: %w", err)
	}
	if err := job.Store.AddLatency(ctx, job.RunID, job.StageKey, hist); err != nil {
		return fmt.Errorf("copying shard latencies: %w", err)
	}
	return nil
}

// shardUnitError returns the first error a shard recorded for its units.
func shardUnitError(db string, fps []string) string {
	s, err := results.Open(db)
	if err != nil {
		return ""
	}
	defer s.Close()
	for _, fp := range fps {
		if u, err := s.GetUnit(context.Background(), fp); err == nil && u.State == results.UnitFailed {
			return "unit failed: " + u.Error
		}
	}
	return ""
}

// wait polls until every task of the attempt is final. On cancel it
// scancels the job.
func (e *Executor) wait(ctx context.Context, a *Attempt, log *slog.Logger) ([]shardOutcome, error) {
	outs := make([]shardOutcome, len(a.Shards))
	for {
		q, err := e.queueOnce(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("slurm status query failed; retrying", "err", err)
			}
		} else if e.step(ctx, a, q, outs, log) {
			return outs, nil
		}
		select {
		case <-ctx.Done():
			if err := e.CLI.Cancel(context.WithoutCancel(ctx), a.JobID); err != nil {
				log.Warn("scancel failed", "job", a.JobID, "err", err)
			}
			return nil, ctx.Err()
		case <-time.After(e.poll()):
		}
	}
}

// step updates outcomes from one queue listing; true when all are final.
func (e *Executor) step(ctx context.Context, a *Attempt, q map[string]Job, outs []shardOutcome, log *slog.Logger) bool {
	all := true
	for i := range outs {
		o := &outs[i]
		if o.final {
			continue
		}
		id := a.TaskID(i)
		j, known := q[id]
		if !known {
			// Not listed: ask scontrol (pending array tasks, or a job
			// squeue dropped) before trusting the exitcode file.
			if js, err := e.CLI.Show(ctx, id); err == nil {
				for _, x := range js {
					if x.ID == id || len(js) == 1 {
						j, known = x, true
					}
				}
			} else if !errors.Is(err, ErrUnknownJob) {
				all = false
				continue
			}
		}
		switch {
		case known && !Terminal(j.State):
			o.miss, o.since = 0, time.Time{}
			if j.State == "PENDING" {
				if msg := PendingMessage(j.Reason); msg != "" && msg != o.note {
					o.note = msg
					log.Warn("slurm job "+msg, "job", id)
				}
				if NeverStarts(j.Reason) {
					_ = e.CLI.Cancel(context.WithoutCancel(ctx), id)
					*o = shardOutcome{final: true, msg: PendingMessage(j.Reason)}
					continue
				}
			}
			all = false
		case known:
			code, ok := a.ExitCode(i)
			switch {
			case ok && code == 0:
				*o = shardOutcome{final: true, ok: true}
			case j.State == "COMPLETED" && !ok && o.miss < forgetPolls:
				o.miss++ // the file may not be visible yet
				all = false
			case o.since.IsZero() || time.Since(o.since) < e.endSettle():
				// A failure is final once later polls still show it, for
				// EndSettle: a job being requeued (scontrol requeue, a
				// node that failed) can read as ended, its first run's
				// exit code written, until Slurm lists it PENDING again,
				// and with a short poll interval that outlasted one poll.
				if o.since.IsZero() {
					o.since = time.Now()
				}
				all = false
			case j.State == "COMPLETED" || j.State == "FAILED":
				*o = shardOutcome{final: true, msg: exitMessage(code, ok, a.LogPath(i))}
			default:
				*o = shardOutcome{final: true, msg: StateMessage(j.State, j.Reason) + "; log: " + a.LogPath(i)}
			}
		default:
			if code, ok := a.ExitCode(i); ok {
				*o = shardOutcome{final: true, ok: code == 0, msg: exitMessage(code, true, a.LogPath(i))}
				continue
			}
			o.miss++
			if o.miss >= forgetPolls {
				*o = shardOutcome{final: true, msg: "is unknown to Slurm and left no exitcode file (it died before its wrapper finished); log: " + a.LogPath(i)}
				continue
			}
			all = false
		}
	}
	return all
}

func exitMessage(code int, ok bool, log string) string {
	if !ok {
		return "ended without writing its exitcode file; log: " + log
	}
	return fmt.Sprintf("exited with code %d; log: %s", code, log)
}

// queueOnce returns the job listing, running squeue at most once per poll
// interval however many stages wait.
func (e *Executor) queueOnce(ctx context.Context) (map[string]Job, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.queue != nil && time.Since(e.polled) < e.poll()/2 {
		return e.queue, nil
	}
	q, err := e.CLI.Queue(ctx)
	if err != nil {
		return nil, err
	}
	e.queue, e.polled = q, time.Now()
	return q, nil
}
