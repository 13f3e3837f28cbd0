package results

import (
	"encoding/json"
	"time"
)

// Run statuses. A run is "running" until FinishRun; an imported run is
// "imported" from the start.
const (
	RunRunning     = "running"
	RunDone        = "done"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
	RunImported    = "imported"
)

// Unit states in the ledger.
const (
	UnitPending = "pending"
	UnitRunning = "running"
	UnitDone    = "done"
	UnitFailed  = "failed"
)

// Run is one execution of an experiment (or one child of a sweep).
type Run struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	ParentID   string          `json:"parent_id,omitempty"` // sweep parent; "" if none
	ConfigName string          `json:"config_name"`         // e.g. paper/qmsum, or the file
	ConfigJSON json.RawMessage `json:"config,omitempty"`    // resolved config
	AxesJSON   json.RawMessage `json:"axes,omitempty"`      // sweep axis values of a child
	Command    string          `json:"command,omitempty"`   // the command line, for the record
	Status     string          `json:"status"`
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	Summary    json.RawMessage `json:"summary,omitempty"` // run_summary.json contents
	// Code is the mascot that executed the run (internal/buildinfo.Info as
	// JSON: module version, VCS revision, dirty flag); empty when unknown.
	Code json.RawMessage `json:"code,omitempty"`
	// OwnerPID and OwnerHost name the process executing the run, which
	// refreshes HeartbeatAt while it lives (0/"": no owner recorded, as
	// for detached Slurm runs).
	OwnerPID    int       `json:"owner_pid,omitempty"`
	OwnerHost   string    `json:"owner_host,omitempty"`
	HeartbeatAt time.Time `json:"heartbeat_at,omitzero"`
}

// Duration is FinishedAt-StartedAt, or the time since StartedAt while the
// run has not finished.
func (r Run) Duration() time.Duration {
	if r.FinishedAt.IsZero() {
		return time.Since(r.StartedAt)
	}
	return r.FinishedAt.Sub(r.StartedAt)
}

// Stage is one stage of a run with its unit counts.
type Stage struct {
	RunID       string    `json:"run_id"`
	Key         string    `json:"key"`
	Kind        string    `json:"kind"`
	Fingerprint string    `json:"fingerprint"`
	Status      string    `json:"status"`
	UnitsTotal  int       `json:"units_total"`
	UnitsDone   int       `json:"units_done"`
	UnitsCached int       `json:"units_cached"`
	UnitsFailed int       `json:"units_failed"`
	Error       string    `json:"error,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	FinishedAt  time.Time `json:"finished_at,omitzero"`
	// Heldout is a training stage's held-out evaluation (GetRunDetail
	// fills it; nil for other stages).
	Heldout *Heldout `json:"heldout,omitempty"`
}

// Unit identifies one unit of work in the ledger.
type Unit struct {
	Fingerprint string `json:"fingerprint"`
	Kind        string `json:"kind"`      // stage kind
	StageKey    string `json:"stage_key"` // stage key in the run that produced it
	RunID       string `json:"run_id"`    // the run committing it now
}

// UnitState is a ledger row as stored.
type UnitState struct {
	Unit
	State     string    `json:"state"`
	Attempts  int       `json:"attempts"`
	Error     string    `json:"error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	DoneAt    time.Time `json:"done_at,omitzero"`
}
