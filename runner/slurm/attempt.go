package slurm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Attempt is one submission of a stage's pending units, stored as
// attempt.json in its directory before the controller waits on it.
type Attempt struct {
	N         int        `json:"attempt"`
	RunID     string     `json:"run_id"`
	Stage     string     `json:"stage"`
	JobID     string     `json:"job_id"`
	Shards    [][]string `json:"shards"` // unit fingerprints per array task
	Submitted time.Time  `json:"submitted_at"`
	// Ingested is set once every shard was ingested; such an attempt is
	// history, not something to re-attach to.
	Ingested bool   `json:"ingested"`
	Dir      string `json:"-"`
}

// TaskID is the Slurm id of shard i ("12_3", or "12" for a plain job).
func (a *Attempt) TaskID(i int) string {
	if len(a.Shards) == 1 {
		return a.JobID
	}
	return a.JobID + "_" + strconv.Itoa(i)
}

// ShardDir is shard i's output directory.
func (a *Attempt) ShardDir(i int) string {
	return filepath.Join(a.Dir, "shards", strconv.Itoa(i))
}

// ExitCode reads shard i's exitcode file; ok is false when there is none.
func (a *Attempt) ExitCode(i int) (code int, ok bool) {
	b, err := os.ReadFile(filepath.Join(a.ShardDir(i), "exitcode"))
	if err != nil {
		return 0, false
	}
	c, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	return c, true
}

// LogPath is where Slurm writes shard i's output.
func (a *Attempt) LogPath(i int) string {
	if len(a.Shards) == 1 {
		return filepath.Join(a.Dir, "logs", a.JobID+"_4294967294.out")
	}
	return filepath.Join(a.Dir, "logs", a.JobID+"_"+strconv.Itoa(i)+".out")
}

func (a *Attempt) save() error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(a.Dir, "attempt.json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing attempt record: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(a.Dir, "attempt.json")); err != nil {
		return fmt.Errorf("writing attempt record: %w", err)
	}
	return nil
}

// loadAttempts reads the attempts under a stage's state directory, oldest
// first.
func loadAttempts(stageDir string) ([]*Attempt, error) {
	ents, err := os.ReadDir(stageDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s: %w", stageDir, err)
	}
	var out []*Attempt
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "attempt-") {
			continue
		}
		dir := filepath.Join(stageDir, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "attempt.json"))
		if os.IsNotExist(err) {
			continue // crashed before submitting
		}
		if err != nil {
			return nil, fmt.Errorf("reading attempt: %w", err)
		}
		a := &Attempt{Dir: dir}
		if err := json.Unmarshal(b, a); err != nil {
			return nil, fmt.Errorf("reading %s: %w", dir, err)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out, nil
}
