package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"

	"mascot.dev/mascot/results"
)

// runsData is the runs list page.
type runsData struct {
	Filter   results.RunFilter
	Runs     []runRow
	Statuses []string
	Sorts    []string
}

type runRow struct {
	results.RunListEntry
	Counters runCounters
}

type kv struct {
	K string
	V int64
}

func sortedKV(m map[string]int64) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].K < out[j].K })
	return out
}

// runsList is GET /: runs with status, counters and duration; filter by
// status and name, sort by any column; reloads while a run is running.
func (s *server) runsList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := results.RunFilter{Status: q.Get("status"), Name: q.Get("q"), Sort: q.Get("sort"), Asc: q.Get("asc") == "1",
		TopLevel: q.Get("all") == "", Tag: q.Get("tag")}
	switch f.Sort {
	case "", "started", "name", "status", "duration", "config":
	default:
		return badRequest("unknown sort key %q", f.Sort)
	}
	list, err := s.st.ListRuns(r.Context(), f)
	if err != nil {
		return err
	}
	d := runsData{Filter: f, Statuses: []string{results.RunRunning, results.RunDone, results.RunFailed,
		results.RunInterrupted, results.RunImported}, Sorts: []string{"started", "name", "status", "duration", "config"}}
	refresh := 0
	for _, e := range list {
		if e.Status == results.RunRunning {
			refresh = s.opts.Refresh
		}
		d.Runs = append(d.Runs, runRow{RunListEntry: e, Counters: summarizeCounters(e.Counters)})
	}
	return s.render(w, "runs", page{Title: "Runs", Refresh: refresh, Data: d})
}

// runData is a run's page.
type runData struct {
	D        results.RunDetail
	Stages   []stageRow
	Counters []kv
	Config   string
	Axes     string
	Children []results.Run
	Duration string
}

type stageRow struct {
	results.Stage
	Ledger   results.UnitCounts
	Counters []kv
	Pct      float64
}

// runPage is GET /runs/{id}: the stage graph (as a table in key order) with
// states and unit counts, counters, the resolved config and sweep children.
func (s *server) runPage(w http.ResponseWriter, r *http.Request) error {
	d, err := s.st.GetRunDetail(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	rd := runData{D: d, Counters: sortedKV(d.Counters), Config: prettyJSON(d.Run.ConfigJSON),
		Axes: prettyJSON(d.Run.AxesJSON), Children: d.Children, Duration: fmtDur(d.Run.Duration())}
	for _, st := range d.Stages {
		row := stageRow{Stage: st, Ledger: d.UnitCounts[st.Key], Counters: sortedKV(d.StageCounters[st.Key])}
		if st.UnitsTotal > 0 {
			row.Pct = 100 * float64(st.UnitsDone+st.UnitsCached) / float64(st.UnitsTotal)
		}
		rd.Stages = append(rd.Stages, row)
	}
	refresh := 0
	if d.Run.Status == results.RunRunning {
		refresh = s.opts.Refresh
	}
	return s.render(w, "run", page{Title: "Run " + d.Run.Name, Refresh: refresh, Data: rd})
}

// prettyJSON indents raw JSON; empty objects become "".
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "{}" || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}
