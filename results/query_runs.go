package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

const runColumns = `id, name, COALESCE(parent_id, ''), config_name, config_json, axes_json, command, status,
	started_at, finished_at, summary_json, owner_pid, owner_host, heartbeat_at, code_json`

// scanRun reads a run; a "running" run whose owner is gone reads as
// interrupted (see Run.ownerGone).
func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var cfg, axes, summary, code string
	var started int64
	var finished, beat sql.NullInt64
	err := sc.Scan(&r.ID, &r.Name, &r.ParentID, &r.ConfigName, &cfg, &axes, &r.Command, &r.Status,
		&started, &finished, &summary, &r.OwnerPID, &r.OwnerHost, &beat, &code)
	if err != nil {
		return r, err
	}
	r.ConfigJSON, r.AxesJSON, r.Summary = json.RawMessage(cfg), json.RawMessage(axes), json.RawMessage(summary)
	if code != "{}" {
		r.Code = json.RawMessage(code)
	}
	r.StartedAt, r.FinishedAt, r.HeartbeatAt = fromMS(started), nullMS(finished), nullMS(beat)
	if r.Status == RunRunning && r.ownerGone(time.Now()) {
		r.Status = RunInterrupted
		r.FinishedAt = r.HeartbeatAt
	}
	return r, nil
}

// GetRun returns one run by exact id.
func (s *Store) GetRun(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.r.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("reading run %s: %w", id, err)
	}
	return r, nil
}

// ResolveRun finds a run from what a user typed: "latest", an exact id, an
// exact name (the newest run of that name), or a unique id prefix.
func (s *Store) ResolveRun(ctx context.Context, ref string) (Run, error) {
	q := `SELECT ` + runColumns + ` FROM runs `
	try := func(where string, args ...any) ([]Run, error) {
		rows, err := s.r.QueryContext(ctx, q+where+` ORDER BY started_at DESC, id DESC LIMIT 2`, args...)
		if err != nil {
			return nil, fmt.Errorf("resolving run %q: %w", ref, err)
		}
		defer rows.Close()
		var out []Run
		for rows.Next() {
			r, err := scanRun(rows)
			if err != nil {
				return nil, fmt.Errorf("resolving run %q: %w", ref, err)
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	if ref == "latest" || ref == "" {
		rs, err := try(`WHERE 1`)
		if err != nil || len(rs) == 0 {
			return Run{}, errors.Join(err, fmt.Errorf("latest run: %w", ErrNotFound))
		}
		return rs[0], nil
	}
	for _, where := range []string{`WHERE id = ?`, `WHERE name = ?`} {
		rs, err := try(where, ref)
		if err != nil {
			return Run{}, err
		}
		if len(rs) > 0 {
			return rs[0], nil
		}
	}
	rs, err := try(`WHERE id LIKE ? ESCAPE '\'`, likePrefix(ref))
	if err != nil {
		return Run{}, err
	}
	switch len(rs) {
	case 0:
		return Run{}, fmt.Errorf("run %q: %w", ref, ErrNotFound)
	case 1:
		return rs[0], nil
	}
	return Run{}, fmt.Errorf("run prefix %q matches several runs: %w", ref, ErrAmbiguous)
}

// likePrefix escapes s for LIKE and appends '%'.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

// RunFilter selects and orders runs for ListRuns.
type RunFilter struct {
	Status     string // exact status; "" = any
	ParentID   string // children of this sweep parent; "" = any
	TopLevel   bool   // only runs without a parent
	Name       string // substring of the name or config name
	ConfigName string // exact config name
	Tag        string // only runs with this tag (results tag)
	Sort       string // started (default) | name | status | duration | config
	Asc        bool   // ascending; the default is descending
	Limit      int    // 0 = 200
}

// RunListEntry is one row of `mascot results ls`.
type RunListEntry struct {
	Run
	Counters    map[string]int64 `json:"counters"` // summed over the run's stages
	UnitsDone   int              `json:"units_done"`
	UnitsCached int              `json:"units_cached"`
	UnitsFailed int              `json:"units_failed"`
	DurationMS  int64            `json:"duration_ms"`
}

// ListRuns lists runs with their counters and unit tallies.
func (s *Store) ListRuns(ctx context.Context, f RunFilter) ([]RunListEntry, error) {
	var where []string
	var args []any
	switch f.Status {
	case "":
	case RunRunning, RunInterrupted:
		// a dead owner's running run reads as interrupted: filter after
		where = append(where, "status IN ('running', 'interrupted')")
	default:
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	if f.ParentID != "" {
		where, args = append(where, "parent_id = ?"), append(args, f.ParentID)
	}
	if f.TopLevel {
		where = append(where, "parent_id IS NULL")
	}
	if f.Name != "" {
		where = append(where, `(name LIKE ? ESCAPE '\' OR config_name LIKE ? ESCAPE '\')`)
		pat := "%" + likePrefix(f.Name)
		args = append(args, pat, pat)
	}
	if f.ConfigName != "" {
		where, args = append(where, "config_name = ?"), append(args, f.ConfigName)
	}
	if f.Tag != "" {
		where, args = append(where, "id IN (SELECT run_id FROM run_tags WHERE tag = ?)"), append(args, f.Tag)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	order := map[string]string{
		"": "started_at", "started": "started_at", "name": "name", "status": "status", "config": "config_name",
		"duration": "(COALESCE(finished_at, CAST(unixepoch('subsec') * 1000 AS INTEGER)) - started_at)",
	}[f.Sort]
	if order == "" {
		return nil, fmt.Errorf("listing runs: unknown sort key %q", f.Sort)
	}
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 200
	}
	// A killed run (still "running" in the table) lasted until its last
	// heartbeat, which only scanRun can tell (its owner's pid is checked):
	// by duration, runs are sorted here after scanning, then cut.
	byDuration := f.Sort == "duration"
	q += " ORDER BY " + order + dir + ", id" + dir
	if !byDuration {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	var out []RunListEntry
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("listing runs: %w", err)
		}
		if f.Status != "" && r.Status != f.Status {
			continue
		}
		out = append(out, RunListEntry{Run: r, Counters: map[string]int64{}, DurationMS: r.Duration().Milliseconds()})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	if byDuration {
		sortByDuration(out, f.Asc)
		if len(out) > limit {
			out = out[:limit]
		}
	}
	for i := range out {
		if err := s.fillListEntry(ctx, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) fillListEntry(ctx context.Context, e *RunListEntry) error {
	c, err := s.RunCounters(ctx, e.ID)
	if err != nil {
		return err
	}
	e.Counters = c
	counts, err := s.RunUnitCounts(ctx, e.ID)
	if err != nil {
		return err
	}
	for _, uc := range counts {
		e.UnitsDone += uc.Done
		e.UnitsCached += uc.Cached
		e.UnitsFailed += uc.Failed
	}
	return nil
}

// RunCounters returns a run's counters summed over its stages (and the
// run-level key ""), with the latency percentiles of each LLM role over
// the whole run. Record each event once: per stage, or run-level.
func (s *Store) RunCounters(ctx context.Context, runID string) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, SUM(value) FROM counters WHERE run_id = ? GROUP BY name`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
	}
	lat, err := s.latencyCounters(ctx, runID)
	if err != nil {
		return nil, err
	}
	for k, v := range lat["*"] {
		out[k] = v
	}
	return out, nil
}

// StageCounters returns a run's counters per stage key ("" = run-level),
// with each stage's LLM latency percentiles.
func (s *Store) StageCounters(ctx context.Context, runID string) (map[string]map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT stage_key, name, value FROM counters WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		var st, k string
		var v int64
		if err := rows.Scan(&st, &k, &v); err != nil {
			return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
		}
		if out[st] == nil {
			out[st] = map[string]int64{}
		}
		out[st][k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading counters of run %s: %w", runID, err)
	}
	lat, err := s.latencyCounters(ctx, runID)
	if err != nil {
		return nil, err
	}
	for st, m := range lat {
		if st == "*" {
			continue
		}
		if out[st] == nil {
			out[st] = map[string]int64{}
		}
		for k, v := range m {
			out[st][k] = v
		}
	}
	return out, nil
}

// Stages returns a run's stages in key order.
func (s *Store) Stages(ctx context.Context, runID string) ([]Stage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT run_id, key, kind, fingerprint, status, units_total, units_done,
		units_cached, units_failed, error, started_at, finished_at FROM stages WHERE run_id = ? ORDER BY key`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading stages of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Stage
	for rows.Next() {
		var st Stage
		var started, finished sql.NullInt64
		if err := rows.Scan(&st.RunID, &st.Key, &st.Kind, &st.Fingerprint, &st.Status, &st.UnitsTotal, &st.UnitsDone,
			&st.UnitsCached, &st.UnitsFailed, &st.Error, &started, &finished); err != nil {
			return nil, fmt.Errorf("reading stages of run %s: %w", runID, err)
		}
		st.StartedAt, st.FinishedAt = nullMS(started), nullMS(finished)
		out = append(out, st)
	}
	return out, rows.Err()
}

// RunDetail is everything `mascot results show RUN` prints.
type RunDetail struct {
	Run           Run                         `json:"run"`
	Stages        []Stage                     `json:"stages"`
	UnitCounts    map[string]UnitCounts       `json:"unit_counts"` // per stage key, from the ledger
	Counters      map[string]int64            `json:"counters"`
	StageCounters map[string]map[string]int64 `json:"stage_counters"`
	Children      []Run                       `json:"children,omitempty"` // sweep children
	Episodes      int                         `json:"episodes"`
}

// GetRunDetail gathers a run's stages (with the held-out evaluation of its
// training stages), unit counts, counters and children.
func (s *Store) GetRunDetail(ctx context.Context, id string) (RunDetail, error) {
	var d RunDetail
	var err error
	if d.Run, err = s.GetRun(ctx, id); err != nil {
		return d, err
	}
	if d.Stages, err = s.Stages(ctx, id); err != nil {
		return d, err
	}
	held, err := s.Heldout(ctx, id)
	if err != nil {
		return d, err
	}
	for i := range d.Stages {
		d.Stages[i].Heldout = held[d.Stages[i].Key]
	}
	if d.UnitCounts, err = s.RunUnitCounts(ctx, id); err != nil {
		return d, err
	}
	if d.Counters, err = s.RunCounters(ctx, id); err != nil {
		return d, err
	}
	if d.StageCounters, err = s.StageCounters(ctx, id); err != nil {
		return d, err
	}
	children, err := s.ListRuns(ctx, RunFilter{ParentID: id, Asc: true, Limit: 10000})
	if err != nil {
		return d, err
	}
	for _, c := range children {
		d.Children = append(d.Children, c.Run)
	}
	err = s.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(episodes), 0) FROM run_stage_units WHERE run_id = ?`,
		id).Scan(&d.Episodes)
	if err != nil {
		return d, fmt.Errorf("counting episodes of run %s: %w", id, err)
	}
	return d, nil
}

// sortByDuration orders runs by their duration (ties by id, in the same
// direction), as ORDER BY duration, id would with interrupted runs ended at
// their last heartbeat.
func sortByDuration(runs []RunListEntry, asc bool) {
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i], runs[j]
		if a.DurationMS != b.DurationMS {
			return (a.DurationMS < b.DurationMS) == asc
		}
		return (a.ID < b.ID) == asc
	})
}
