package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// Stage states a sync reports.
const (
	StageDone      = "done"
	StageRunning   = "running"
	StagePending   = "pending"
	StageFailed    = "failed"
	StageCancelled = "cancelled"
)

// StageStatus is one detached stage as a sync saw it.
type StageStatus struct {
	Key      string `json:"key"`
	JobID    string `json:"job_id"`
	State    string `json:"state"`
	Msg      string `json:"message,omitempty"`
	Ingested bool   `json:"ingested"`
	Units    int    `json:"units_ingested"` // by this sync
}

// SyncReport is what one sync found and did.
type SyncReport struct {
	RunID  string        `json:"run_id"`
	Stages []StageStatus `json:"stages"`
	// Complete is true when every stage is done and ingested; Ended when
	// no stage is pending or running any more.
	Complete bool `json:"complete"`
	Ended    bool `json:"ended"`
	// Warning says what went wrong that cost nothing but speed (the
	// report cache could not be filled).
	Warning string `json:"warning,omitempty"`
}

// Sync brings a detached run up to date: it asks Slurm about each stage's
// job, ingests the shard databases of finished stages into store (in
// submission order, each once), scancels jobs whose dependency can never
// be satisfied and reports every stage's state. It is idempotent and may
// be called as often as wanted.
func (e *Executor) Sync(ctx context.Context, store *results.Store, runDir string) (*SyncReport, error) {
	d, err := LoadDetached(runDir)
	if err != nil {
		return nil, err
	}
	q, err := e.CLI.Queue(ctx)
	if err != nil {
		return nil, fmt.Errorf("asking slurm about the run's jobs: %w", err)
	}
	rep := &SyncReport{RunID: d.RunID, Ended: true}
	ingesting := true // ingest stops at the first stage not done, to keep the id order
	var failedStage string
	for _, s := range d.Stages {
		st := StageStatus{Key: s.Key, JobID: s.JobID}
		if s.Final != "" {
			st.State, st.Msg = s.Final, s.Msg
		} else {
			st.State, st.Msg = e.stageState(ctx, s, q)
			if st.State == StageCancelled && failedStage != "" {
				st.Msg = "never ran: upstream stage " + failedStage + " did not succeed (" + st.Msg + ")"
			}
			switch st.State {
			case StageDone, StageFailed, StageCancelled:
				s.Final, s.Msg = st.State, st.Msg
			}
		}
		if (st.State == StageFailed || st.State == StageCancelled) && failedStage == "" {
			failedStage = s.Key
		}
		if st.State == StagePending || st.State == StageRunning {
			rep.Ended = false
		}
		if ingesting && !s.Ingested && (st.State == StageDone || st.State == StageFailed) {
			n, err := d.ingest(ctx, store, s)
			if err != nil {
				_ = d.save()
				return rep, err
			}
			st.Units = n
		}
		if st.State != StageDone || !s.Ingested {
			ingesting = false
		}
		st.Ingested = s.Ingested
		rep.Stages = append(rep.Stages, st)
	}
	rep.Complete = rep.Ended && failedStage == "" && !ingestingPending(d)
	if rep.Ended {
		status := results.RunDone
		if !rep.Complete {
			status = results.RunFailed
		}
		if err := store.FinishRun(ctx, d.RunID, status, ""); err != nil {
			return rep, err
		}
		if rep.Complete {
			// As a local run does: the report and the viewer serve the
			// finished run's tables at once (a failure costs only speed).
			if err := report.Warm(ctx, store, d.RunID); err != nil {
				rep.Warning = fmt.Sprintf("warming the report cache: %v", err)
			}
		}
	}
	return rep, d.save()
}

func ingestingPending(d *Detached) bool {
	for _, s := range d.Stages {
		if !s.Ingested {
			return true
		}
	}
	return false
}

// ingest copies a finished stage's shard databases into store after
// checking the store still numbers rows as the jobs did.
func (d *Detached) ingest(ctx context.Context, store *results.Store, s *DetachedStage) (int, error) {
	now, err := store.MaxRowIDs(ctx)
	if err != nil {
		return 0, err
	}
	for t, n := range d.Watermark {
		if now[t] != n {
			return 0, fmt.Errorf("ingesting stage %s: the database %s changed since the run was detached (%s has rows up to id %d, the jobs assumed %d); ingesting would point rows at the wrong ids, so rerun the experiment instead",
				s.Key, store.Path(), t, now[t], n)
		}
	}
	a := s.attempt()
	units := 0
	for i := range s.Shards {
		db := filepath.Join(a.ShardDir(i), "shard.db")
		if _, err := os.Stat(db); err != nil {
			continue
		}
		st, err := results.Ingest(ctx, store, db, d.RunID)
		if err != nil {
			return units, err
		}
		units += len(st.Units)
	}
	if d.Watermark, err = store.MaxRowIDs(ctx); err != nil {
		return units, err
	}
	s.Ingested = true
	return units, nil
}

// stageState combines the stage's exitcode files with what Slurm says.
func (e *Executor) stageState(ctx context.Context, s *DetachedStage, q map[string]Job) (string, string) {
	a := s.attempt()
	state, msgs := StageDone, []string{}
	worse := func(st string) {
		rank := map[string]int{StageDone: 0, StagePending: 1, StageRunning: 2, StageCancelled: 3, StageFailed: 4}
		if rank[st] > rank[state] {
			state = st
		}
	}
	for i := range s.Shards {
		if code, ok := a.ExitCode(i); ok {
			if code != 0 {
				worse(StageFailed)
				msgs = append(msgs, "job "+a.TaskID(i)+" "+exitMessage(code, true, a.LogPath(i)))
			}
			continue
		}
		id := a.TaskID(i)
		j, known := q[id]
		if !known {
			js, err := e.CLI.Show(ctx, id)
			switch {
			case errors.Is(err, ErrUnknownJob):
			case err != nil:
				worse(StagePending)
				continue
			}
			for _, x := range js {
				if x.ID == id || len(js) == 1 {
					j, known = x, true
				}
			}
		}
		switch {
		case !known:
			worse(StageFailed)
			msgs = append(msgs, "job "+id+" is unknown to Slurm and left no exitcode file; log: "+a.LogPath(i))
		case j.State == "PENDING" && j.Reason == "DependencyNeverSatisfied":
			_ = e.CLI.Cancel(context.WithoutCancel(ctx), s.JobID)
			worse(StageCancelled)
			msgs = append(msgs, "DependencyNeverSatisfied; scancelled")
		case j.State == "PENDING":
			worse(StagePending)
		case !Terminal(j.State):
			worse(StageRunning)
		case j.State == "CANCELLED" && strings.Contains(j.Reason, "Dependency"):
			worse(StageCancelled)
			msgs = append(msgs, "cancelled by Slurm ("+j.Reason+")")
		case j.State == "CANCELLED":
			worse(StageCancelled)
			msgs = append(msgs, "job "+id+" was cancelled")
		default:
			worse(StageFailed)
			msgs = append(msgs, "job "+id+" "+StateMessage(j.State, j.Reason)+"; log: "+a.LogPath(i))
		}
	}
	if state == StagePending || state == StageRunning {
		return state, ""
	}
	return state, strings.Join(uniq(msgs), "; ")
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
