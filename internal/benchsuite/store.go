package benchsuite

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"mascot.dev/mascot/internal/benchdb"
	"mascot.dev/mascot/internal/hugemem"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/results/transfer"
	"mascot.dev/mascot/results/web"
)

// paperScale is the run size issue 23's store goals are set at.
const paperScale = 100_000

// storeOp is one measured operation of the store phase.
type storeOp struct {
	figure   string
	goal     float64 // CPU-seconds at paperScale; 0: a wall-clock goal (viewer)
	wallGoal float64
	run      func(ctx context.Context) error
}

// storeRows measures the store's cold paths on the benchmark database of
// n evaluation episodes, rounds rounds, each op's CPU against one SQL
// pass over the database's judgment rows in the same round.
func storeRows(ctx context.Context, dir string, n, rounds int) ([]Row, error) {
	path, err := benchdb.Path(n)
	if err != nil {
		return nil, err
	}
	// The phase's operations are mascot commands (report, compare,
	// export, import, the viewer), whose process advises huge pages for
	// its heap before it starts (cmd/mascot's Main).
	hugemem.AdviseProcess()
	s, err := results.Open(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	h, err := web.NewHandler(s, web.Options{Patience: time.Hour}) // the page when ready, not "computing"
	if err != nil {
		return nil, err
	}
	var judgments int64
	anchor := func(ctx context.Context) error {
		var sum float64
		return s.Reader().QueryRowContext(ctx, `SELECT COUNT(*), TOTAL(score) FROM judgments`).Scan(&judgments, &sum)
	}
	var exported string
	page := func(path string, runs ...string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			for _, id := range runs { // the write: the runs' stored results are stale
				if err := s.ForgetResults(ctx, id); err != nil {
					return err
				}
			}
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Host = "127.0.0.1"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				return fmt.Errorf("%s: %d", path, rec.Code)
			}
			return nil
		}
	}
	ops := []storeOp{
		{figure: "report, computed afresh", goal: 1.0, run: func(ctx context.Context) error {
			rep, err := report.Build(ctx, s, []string{benchdb.RunID}, report.Options{NoCache: true})
			if err != nil {
				return err
			}
			if len(rep.Tables) != 3 {
				return fmt.Errorf("report: %d tables, want 3", len(rep.Tables))
			}
			return report.Render(io.Discard, rep, report.FormatText)
		}},
		{figure: "compare with its rerun, afresh", goal: 1.5, run: func(ctx context.Context) error {
			c, err := report.Compare(ctx, s, benchdb.RunID, benchdb.RunB, report.Options{NoCache: true})
			if err != nil {
				return err
			}
			if len(c.Paired) != 3 {
				return fmt.Errorf("compare: %d paired tables, want 3", len(c.Paired))
			}
			return report.RenderComparison(io.Discard, c, report.FormatText)
		}},
		{figure: "export (mascot-jsonl)", goal: 5, run: func(ctx context.Context) error {
			out := filepath.Join(dir, "export")
			_ = os.RemoveAll(out)
			res, err := transfer.Export(ctx, s, benchdb.RunID, out, transfer.ExportOptions{})
			if err != nil {
				return err
			}
			if res.Episodes != n {
				return fmt.Errorf("export: %d episodes, want %d", res.Episodes, n)
			}
			exported = res.Path
			return nil
		}},
		{figure: "import of that file, new database", goal: 10, run: func(ctx context.Context) error {
			if exported == "" {
				return nil // measured after the export (rounds rotate)
			}
			db := filepath.Join(dir, "import.db")
			defer func() { _ = results.RemoveDB(db) }()
			res, err := transfer.ImportNew(ctx, db, exported, "imported") // as `mascot import` does
			if err != nil {
				return err
			}
			if res.Episodes != n {
				return fmt.Errorf("import: %d episodes, want %d", res.Episodes, n)
			}
			return nil
		}},
		{figure: "viewer report page, ready after a write", wallGoal: 1.5,
			run: page("/runs/"+benchdb.RunID+"/report", benchdb.RunID)},
		{figure: "viewer compare page, ready after a write", wallGoal: 1.5,
			run: page("/compare?a="+benchdb.RunID+"&b="+benchdb.RunB, benchdb.RunID, benchdb.RunB)},
	}
	// The export comes first in the first round, so every round imports.
	if err := ops[2].run(ctx); err != nil {
		return nil, err
	}
	anchors := make([]cost, 0, rounds)
	got := make([][]cost, len(ops))
	for r := range rounds {
		steps := len(ops) + 1
		var a cost
		for k := range steps {
			i := (k + r) % steps
			if i == len(ops) {
				if a, err = measure(func() error { return anchor(ctx) }); err != nil {
					return nil, err
				}
				continue
			}
			c, err := measure(func() error { return ops[i].run(ctx) })
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ops[i].figure, err)
			}
			got[i] = append(got[i], c)
		}
		anchors = append(anchors, a)
	}
	scale := float64(paperScale) / float64(n)
	anchorName := fmt.Sprintf("SQL pass, %.2f M judgments, CPU", float64(judgments)/1e6)
	var rows []Row
	for i, op := range ops {
		var ratio, cpu, wall []float64
		for r, c := range got[i] {
			ratio = append(ratio, c.cpu/anchors[r].cpu)
			cpu = append(cpu, c.cpu)
			wall = append(wall, c.wall)
		}
		_, mc, _ := Spread(cpu)
		_, mw, _ := Spread(wall)
		row := Row{Figure: fmt.Sprintf("%s, %s episodes", op.figure, episodes(n)), Anchor: anchorName,
			Values: ratio, Format: "%.1f", Cost: costs(got[i])}
		switch {
		case op.goal > 0:
			at := mc * scale
			row.Goal = fmt.Sprintf("≤ %.1f CPU-s", op.goal)
			row.Met = func(float64) bool { return at <= op.goal }
			if n != paperScale {
				row.Note = fmt.Sprintf("at %dk: ≈ %.2f CPU-s, extrapolated linearly from %.2f", paperScale/1000, at, mc)
				row.Goal += " *"
			}
		default:
			at := mw * scale
			row.Goal = fmt.Sprintf("≤ %.1f s", op.wallGoal)
			row.Met = func(float64) bool { return at <= op.wallGoal }
			if n != paperScale {
				row.Note = fmt.Sprintf("at %dk: ≈ %.2f s wall, extrapolated linearly from %.2f", paperScale/1000, at, mw)
				row.Goal += " *"
			}
		}
		rows = append(rows, row)
	}
	_, ma, _ := Spread(func() []float64 {
		var v []float64
		for _, a := range anchors {
			v = append(v, a.cpu)
		}
		return v
	}())
	if rows[0].Note != "" {
		rows[0].Note += "; "
	}
	rows[0].Note += fmt.Sprintf("the anchor took %.2f CPU-s (median)", ma)
	return rows, nil
}

// episodes writes n as "10k" or "400".
func episodes(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
