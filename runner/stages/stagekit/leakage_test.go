package stagekit_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/realdata"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/datasets"
	_ "mascot.dev/mascot/runner/stages/all" // every built-in stage kind
	"mascot.dev/mascot/runner/stages/stagekit"
	"mascot.dev/mascot/schema"
)

// qmsumDir builds a QMSum directory like QMSum's data/ALL/jsonl from the
// real test split shipped in testdata/datasets: the first 20 meetings as train.jsonl, the next 5 as
// val.jsonl, the rest as test.jsonl (so the splits share no meeting, as
// QMSum's do).
func qmsumDir(t *testing.T) string {
	t.Helper()
	f, err := os.Open(realdata.File(t, "qmsum/test.jsonl"))
	if err != nil {
		t.Fatalf("real QMSum data: %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil || len(lines) < 30 {
		t.Fatalf("read %d meetings: %v", len(lines), err)
	}
	dir := t.TempDir()
	for name, part := range map[string][]string{"train": lines[:20], "val": lines[20:25], "test": lines[25:]} {
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadPaperQMSum(t *testing.T, data string, sets ...string) *schema.Loaded {
	t.Helper()
	l, err := schema.Load("paper/qmsum", runner.Default.Kinds(), schema.Options{Tags: []string{"vllm=http://127.0.0.1:9/v1",
		"judge=http://127.0.0.1:9/v1", "data=" + data}, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// content identifies a context by what agents see, not by its id (ids
// carry the file's name, so the same meeting in two files differs by id).
func content(s datasets.Sample) string {
	var b strings.Builder
	b.WriteString(s.Query)
	for _, u := range s.Context {
		b.WriteString("\x00" + u.Speaker + ":" + u.Text)
	}
	return b.String()
}

// TestPaperQMSumTrainsOnTrainAndEvaluatesOnTest: with a QMSum directory,
// paper/qmsum's training contexts come from train.jsonl and its evaluation
// contexts from test.jsonl, and no context is in both.
func TestPaperQMSumTrainsOnTrainAndEvaluatesOnTest(t *testing.T) {
	dir := qmsumDir(t)
	env := &runner.Env{Exp: loadPaperQMSum(t, dir).Experiment}
	train, err := stagekit.LoadDataset(env, "train")
	if err != nil {
		t.Fatal(err)
	}
	test, err := stagekit.LoadDataset(env, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 60 || len(test) == 0 {
		t.Fatalf("%d training and %d evaluation contexts, want 60 and some", len(train), len(test))
	}
	seen := map[string]bool{}
	for _, s := range train {
		if !strings.HasPrefix(s.Meeting, "train_") {
			t.Errorf("training context %s comes from meeting %s, not train.jsonl", s.ID, s.Meeting)
		}
		seen[content(s)] = true
	}
	overlap := 0
	for _, s := range test {
		if !strings.HasPrefix(s.Meeting, "test_") {
			t.Errorf("evaluation context %s comes from meeting %s, not test.jsonl", s.ID, s.Meeting)
		}
		if seen[content(s)] {
			overlap++
		}
	}
	if overlap != 0 {
		t.Errorf("%d of %d evaluation contexts are training contexts", overlap, len(test))
	}
}

// TestOneQMSumFileForBothSplitsIsRefused: the old way of running
// paper/qmsum, one test.jsonl for both datasets, is refused instead of
// training on 21 of the 100 evaluation contexts.
func TestOneQMSumFileForBothSplitsIsRefused(t *testing.T) {
	file := filepath.Join(qmsumDir(t), "test.jsonl")
	env := &runner.Env{Exp: loadPaperQMSum(t, file).Experiment}
	_, err := stagekit.LoadDataset(env, "train")
	if err == nil || !strings.Contains(err.Error(), `test.jsonl holds the test split, but split "train" is asked for`) {
		t.Errorf("err = %v, want the split mismatch", err)
	}
}

// sharedSpec loads an experiment whose training and evaluation datasets
// read one QMSum file: train from trainPath, test from testPath, with the
// extra dataset fields in testExtra.
func sharedSpec(t *testing.T, trainPath, testPath, testExtra string) (*schema.Loaded, error) {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "shared"
datasets: train: {name: "qmsum", path: "` + trainPath + `", limit: 30, seed: 1}
datasets: test: {name: "qmsum", path: "` + testPath + `", limit: 40, seed: 2` + testExtra + `}
rosters: main: personas.meetings
endpoints: speaker: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
endpoints: director: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
endpoints: user: {urls: ["http://127.0.0.1:9/v1"], model: "m"}
stages: candidates: {kind: "candidates", dataset: "train", roster: "main"}
stages: eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "main"}
`
	return schema.Load(testspec.Write(t, src), runner.Default.Kinds(), schema.Options{})
}

// TestSharedSplitIsDrawnDisjoint: where training and evaluation data must
// share one split, evaluation excludes the training samples and still
// draws its full limit; without exclude validation refuses it.
func TestSharedSplitIsDrawnDisjoint(t *testing.T) {
	file := filepath.Join(qmsumDir(t), "test.jsonl")
	if _, err := sharedSpec(t, file, file, ""); err == nil || !strings.Contains(err.Error(), `set exclude: ["train"]`) {
		t.Errorf("shared split without exclude: err = %v", err)
	}
	l, err := sharedSpec(t, file, file, `, exclude: ["train"]`)
	if err != nil {
		t.Fatal(err)
	}
	env := &runner.Env{Exp: l.Experiment}
	train, err := stagekit.LoadDataset(env, "train")
	if err != nil {
		t.Fatal(err)
	}
	test, err := stagekit.LoadDataset(env, "test")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range train {
		ids[s.ID] = true
	}
	for _, s := range test {
		if ids[s.ID] {
			t.Errorf("evaluation context %s is a training context", s.ID)
		}
	}
	if len(train) != 30 || len(test) != 40 {
		t.Errorf("%d training and %d evaluation contexts, want 30 and 40", len(train), len(test))
	}
}

// TestOverlapSeenOnlyInTheFilesIsRefused: two spellings of one file pass
// validation (the paths differ), so the overlap is refused when the
// evaluation data is read, before any LLM call.
func TestOverlapSeenOnlyInTheFilesIsRefused(t *testing.T) {
	dir := qmsumDir(t)
	l, err := sharedSpec(t, dir+"/./test.jsonl", dir+"/test.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	env := &runner.Env{Exp: l.Experiment}
	_, err = stagekit.LoadDataset(env, "test")
	if err == nil || !strings.Contains(err.Error(), "evaluation dataset test holds ") ||
		!strings.Contains(err.Error(), "training dataset train (stage candidates)") {
		t.Errorf("err = %v, want the overlap refused", err)
	}
}
