package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"mascot.dev/mascot/results"
)

// addPipelineEpisodes writes what a pipeline run holds: 3 evaluation
// episodes (stage eval) and 5 training-time ones (stages independent and
// branching), the training units committed first.
func addPipelineEpisodes(t *testing.T, s *results.Store, runID string) {
	t.Helper()
	ctx := context.Background()
	mustRun(t, s, runID)
	for _, st := range []struct {
		stage, mode string
		n           int
	}{{"independent", results.ModeIndependent, 2}, {"branching", results.ModeBranching, 3}, {"eval", results.ModeEval, 3}} {
		for i := range st.n {
			u := results.Unit{Fingerprint: fmt.Sprintf("%s-%s-%d", runID, st.stage, i), Kind: "episodes", StageKey: st.stage,
				RunID: runID}
			err := s.CommitUnit(ctx, u, func(tx *results.Tx) error {
				e := sampleEpisode(fmt.Sprintf("%s-%d", st.stage, i))
				e.Mode = st.mode
				_, err := tx.InsertEpisode(e)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestExportWritesEvaluationEpisodes: by default an export holds the
// evaluation episodes only, each labelled with its stage and mode, and says
// how many training episodes it left out; asked, it writes those too,
// labelled as such.
func TestExportWritesEvaluationEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	addPipelineEpisodes(t, s, "r")
	res, err := Export(ctx, s, "r", t.TempDir(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != 3 || res.LeftOut != 5 || res.Training != 0 {
		t.Fatalf("export %+v, want 3 episodes and 5 left out", res)
	}
	for _, r := range readLines(t, res.Path) {
		m := r.(map[string]any)
		if m[RecordStageKey] != "eval" || m[RecordModeKey] != results.ModeEval {
			t.Errorf("record %v: stage %v mode %v, want eval/eval", m["conv_id"], m[RecordStageKey], m[RecordModeKey])
		}
		if len(m["turns"].([]any)) != 2 {
			t.Errorf("record %v: %d turns, want 2", m["conv_id"], len(m["turns"].([]any)))
		}
	}

	all, err := Export(ctx, s, "r", t.TempDir(), ExportOptions{IncludeTraining: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Episodes != 8 || all.Training != 5 || all.LeftOut != 0 {
		t.Fatalf("export with training %+v, want 8 episodes, 5 of them training", all)
	}
	modes := map[string]int{}
	for _, r := range readLines(t, all.Path) {
		m := r.(map[string]any)
		modes[fmt.Sprint(m[RecordStageKey], "/", m[RecordModeKey])]++
	}
	want := map[string]int{"independent/independent": 2, "branching/branching": 3, "eval/eval": 3}
	if !reflect.DeepEqual(modes, want) {
		t.Errorf("stage/mode of the records %v, want %v", modes, want)
	}
}

// TestExportImportKeepsStageAndMode: importing an export keeps every
// record's stage and mode (training episodes stay training episodes of the
// imported run), and exporting the imported run gives the same records.
func TestExportImportKeepsStageAndMode(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	addPipelineEpisodes(t, s, "r")
	first, err := Export(ctx, s, "r", filepath.Join(t.TempDir(), "first"), ExportOptions{IncludeTraining: true})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := Import(ctx, s, first.Path, "again")
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes WHERE unit_fp = ? AND mode = ?`, imp.UnitFP, results.ModeBranching); n != 3 {
		t.Errorf("%d imported branching episodes, want 3", n)
	}
	evalOnly, err := Export(ctx, s, imp.RunID, t.TempDir(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if evalOnly.Episodes != 3 || evalOnly.LeftOut != 5 {
		t.Errorf("imported run exports %+v, want 3 evaluation episodes and 5 left out", evalOnly)
	}
	second, err := Export(ctx, s, imp.RunID, filepath.Join(t.TempDir(), "second"), ExportOptions{IncludeTraining: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := readLines(t, first.Path), readLines(t, second.Path)
	if !reflect.DeepEqual(a, b) {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		t.Errorf("export after import differs:\n%s\n%s", x, y)
	}
}

// TestExportRunWithoutEvaluationEpisodes: a run whose episodes all keep the
// default mode (independent) exports them, labelled, instead of nothing.
func TestExportRunWithoutEvaluationEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	err := s.CommitUnit(ctx, results.Unit{Fingerprint: "g", Kind: "episodes", StageKey: "ep", RunID: "r"}, func(tx *results.Tx) error {
		e := sampleEpisode("c")
		e.Mode = results.ModeIndependent
		_, err := tx.InsertEpisode(e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Export(ctx, s, "r", t.TempDir(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != 1 || res.Training != 1 || res.LeftOut != 0 {
		t.Fatalf("export %+v, want the one independent episode", res)
	}
	if m := readLines(t, res.Path)[0].(map[string]any); m[RecordModeKey] != results.ModeIndependent || m[RecordStageKey] != "ep" {
		t.Errorf("record labelled %v/%v", m[RecordStageKey], m[RecordModeKey])
	}
}
