package results

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// scanOnly computes the run's groups from the per-unit rows, its report
// blocks left aside (as for a run whose blocks fell behind while running).
func scanOnly(t *testing.T, s *Store, runID, split string, scope Scope) []ScoreGroup {
	t.Helper()
	ctx := context.Background()
	sp, err := splitExpr(split)
	if err != nil {
		t.Fatal(err)
	}
	training, err := s.CoversTraining(ctx, runID, scope)
	if err != nil {
		t.Fatal(err)
	}
	eg, err := s.episodeGroups(ctx, runID, sp, training)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := s.scanValues(ctx, runID, scope.Units, eg)
	if err != nil {
		t.Fatal(err)
	}
	return assembleGroups(eg, cols, scope.Units != nil)
}

// fromBlocks computes the run's groups from its report blocks, failing
// when they are not current.
func fromBlocks(t *testing.T, s *Store, runID, split string, scope Scope) []ScoreGroup {
	t.Helper()
	bs, ok, err := s.readBlocks(context.Background(), runID)
	if err != nil || !ok {
		t.Fatalf("run %s: report blocks not current (%v)", runID, err)
	}
	in, missing := bs.covers(scope)
	if covered, err := s.linkedTo(context.Background(), runID, missing); err != nil || !covered {
		t.Fatalf("run %s: blocks do not cover the scope (%v)", runID, err)
	}
	gs, err := bs.scoreGroups(split, scope, in)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// sameBothWays checks that the blocks and the per-unit rows give the same
// groups (bit for bit) for every split, with and without training, and
// scoped to units.
func sameBothWays(t *testing.T, s *Store, runID string, units []string) {
	t.Helper()
	for _, split := range []string{"auto", "valence", "domain", "none"} {
		for _, scope := range []Scope{{}, {IncludeTraining: true}, {Units: units}} {
			what := fmt.Sprintf("run %s split %s scope %+v", runID, split, scope)
			sameGroups(t, what, fromBlocks(t, s, runID, split, scope), scanOnly(t, s, runID, split, scope))
		}
	}
}

// TestReportBlocksEqualTheScan: the groups a report reads from the blocks
// kept at commit time equal those of the per-unit scan, for a run whose
// units it committed, for a run that links them all (a cached rerun), and
// when two units score the same cells (summed in fingerprint order
// whatever the commit order).
func TestReportBlocksEqualTheScan(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	judgeUnits, epsOf := scanFixture(t, s, 1100) // two ranges for the scan
	if n := count(t, s, `SELECT COUNT(*) FROM report_blocks WHERE run_id = 'r'`); n < 3 {
		t.Fatalf("%d blocks for run r, want its tail merged into several", n)
	}
	sameBothWays(t, s, "r", judgeUnits[:40])

	// A rerun reusing every unit of r.
	mustRun(t, s, "rerun")
	for _, stage := range []string{"gen", "judge"} {
		fps, err := s.StageUnits(ctx, "r", []string{stage})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.LinkUnits(ctx, "rerun", stage, fps); err != nil {
			t.Fatal(err)
		}
		if n, err := s.LinkUnits(ctx, "rerun", stage, fps); n != 0 || err != nil { // all linked already
			t.Fatalf("linking again: %d, %v", n, err)
		}
	}
	sameBothWays(t, s, "rerun", judgeUnits[10:30])
	sameGroups(t, "rerun against r", fromBlocks(t, s, "rerun", "auto", Scope{}), fromBlocks(t, s, "r", "auto", Scope{}))

	// Two late units score the same episodes on one criterion, committed
	// against fingerprint order: one cell, two units.
	for _, fp := range []string{"zz-late", "aa-late"} {
		err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "judge", StageKey: "late", RunID: "r"}, func(tx *Tx) error {
			var js []Judgment
			for _, id := range epsOf[5] {
				js = append(js, Judgment{Judge: "j3", Criterion: "fidelity", Score: 1.1 + float64(len(fp))/7,
					ScaleMin: 0, ScaleMax: 3.3, EpisodeID: id})
			}
			_, err := tx.InsertJudgments(js)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	bs, _, _ := s.readBlocks(ctx, "r")
	if _, ok := bs.accumulate(allUnits(bs), mustGroups(t, bs)); ok {
		t.Fatal("the late units should add to cells the fixture's units fill")
	}
	sameBothWays(t, s, "r", []string{"aa-late", "zz-late"})
}

func allUnits(bs *blockSet) []int {
	out := make([]int, len(bs.units))
	for i := range out {
		out[i] = i
	}
	return out
}

func mustGroups(t *testing.T, bs *blockSet) *epGroups {
	t.Helper()
	eg, err := bs.episodeGroups("auto", false)
	if err != nil {
		t.Fatal(err)
	}
	return eg
}

// TestReportBlocksFallBehindAndRebuild: a write the blocks do not hold (a
// judgment changed after its commit, a unit unlinked) leaves them behind;
// while the run runs the report reads the per-unit rows, and once it has
// finished the report rebuilds them, after which they are current again
// and give what the rows give.
func TestReportBlocksFallBehindAndRebuild(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	judgeUnits, _ := scanFixture(t, s, 60)
	current := func() bool {
		_, ok, err := s.readBlocks(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !current() {
		t.Fatal("blocks of a freshly committed run are not current")
	}
	for step, q := range []string{
		`UPDATE judgments SET score = 5 - score WHERE unit_fp = 'judge-0004' AND criterion = 'fidelity'`,
		`DELETE FROM run_units WHERE run_id = 'r' AND fingerprint = 'judge-0009'`,
		`DELETE FROM episodes WHERE unit_fp = 'gen-0011'`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
		if current() {
			t.Fatalf("step %d: the blocks did not fall behind %q", step, q)
		}
		got, err := s.ScoreGroups(ctx, "r", "auto") // running: the scan serves, nothing is rebuilt
		if err != nil {
			t.Fatal(err)
		}
		if current() {
			t.Fatalf("step %d: blocks rebuilt while the run runs", step)
		}
		want, err := s.refScoreGroups(ctx, "r", "auto")
		if err != nil {
			t.Fatal(err)
		}
		sameGroups(t, fmt.Sprintf("step %d", step), got, want)
	}
	if err := s.FinishRun(ctx, "r", RunDone, "{}"); err != nil {
		t.Fatal(err)
	}
	got, err := s.ScoreGroups(ctx, "r", "auto")
	if err != nil {
		t.Fatal(err)
	}
	if !current() {
		t.Fatal("a finished run's report did not rebuild its blocks")
	}
	want, err := s.refScoreGroups(ctx, "r", "auto")
	if err != nil {
		t.Fatal(err)
	}
	sameGroups(t, "rebuilt", got, want)
	sameBothWays(t, s, "r", judgeUnits[:8])
	judges, err := s.RunJudges(ctx, "r", Scope{})
	if err != nil || fmt.Sprint(judges) != "[j1 j2]" {
		t.Errorf("judges from the blocks: %v %v", judges, err)
	}
}

// TestNoteEpisodeKeepsCopies: what a unit keeps of its episodes for the
// report blocks shares no memory with the episode's strings, which an
// import slices from the file's lines (keeping them kept every line).
func TestNoteEpisodeKeepsCopies(t *testing.T) {
	s := openTemp(t)
	mustRun(t, s, "r")
	line := strings.Repeat("x", 4096) + "conv-1|mascot|eval"
	inLine := func(v string) bool {
		p, base := uintptr(unsafe.Pointer(unsafe.StringData(v))), uintptr(unsafe.Pointer(unsafe.StringData(line)))
		return len(v) > 0 && p >= base && p < base+uintptr(len(line))
	}
	err := s.CommitUnit(t.Context(), Unit{Fingerprint: "u", Kind: "episodes", StageKey: "st", RunID: "r"}, func(tx *Tx) error {
		e := sampleEpisode(line[4096:4102])
		e.System, e.Mode = line[4103:4109], line[4110:]
		if _, err := tx.InsertEpisode(e); err != nil {
			return err
		}
		if len(tx.episodes) != 1 {
			t.Fatalf("%d episodes noted", len(tx.episodes))
		}
		n := tx.episodes[0]
		if n.conv != "conv-1" || n.system != "mascot" || n.mode != "eval" {
			t.Errorf("noted %+v", n)
		}
		for _, v := range []string{n.conv, n.system, n.mode} {
			if inLine(v) {
				t.Errorf("%q is kept as a slice of the record's line", v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
