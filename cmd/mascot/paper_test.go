package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/realdata"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

func mascot(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("mascot %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
	}
	return out.String()
}

// tinyBase saves a random tiny model with the byte-level tokenizer, the
// local base_model the sft baseline trains from in tests.
func tinyBase(t *testing.T) string {
	cfg := qwen3.Tiny()
	cfg.VocabSize = tokenizer.ByteLevelVocabSize
	cfg.MaxPositionEmbeddings = 8192
	m, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := serve.WriteByteTokenizerMarker(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPaperBaselinesAgainstFakeVLLM runs every baseline config by name
// against the fake vLLM server (generation, per-agent and collective
// judging, metrics, report) and checks the exported MASCOT JSONL.
func TestPaperBaselinesAgainstFakeVLLM(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{Model: "google/gemma-3-27b-it"})
	data := t.TempDir()
	csv, err := os.ReadFile("../../runner/datasets/testdata/ed_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	// The sft baseline trains on train.csv and evaluates on test.csv, which
	// must not share a conversation: train.csv gets the sample's dialogues
	// under other conversation ids.
	splits := map[string][]byte{"train.csv": bytes.ReplaceAll(csv, []byte("hit:"), []byte("trainhit:")), "test.csv": csv}
	for f, b := range splits {
		if err := os.WriteFile(filepath.Join(data, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := tinyBase(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	for _, b := range []string{"zero-shot", "zero-shot-cot", "few-shot", "few-shot-cot", "self-consistency", "multiagent-esc", "sft"} {
		t.Run(b, func(t *testing.T) {
			args := []string{"run", "paper/baselines/" + b, "-t", "vllm=" + srv.URL(), "-t", "judge=" + judge.URL(),
				"-t", "data=" + data, "--db", db, "--runs-dir", filepath.Join(dir, "runs"),
				"--set", "datasets.test.limit=2", "--set", "stages.eval.turns=2"}
			if b == "sft" {
				args = append(args, "--set", "stages.sft.base_model="+base, "--set", "stages.sft.max_steps=2",
					"--set", "stages.sft.lora.r=8")
			}
			mascot(t, args...)
			out := filepath.Join(dir, "export-"+b)
			mascot(t, "export", "latest", "--db", db, "--out", out)
			checkExport(t, filepath.Join(out, "conversations.jsonl"), b, 2)
			rep := mascot(t, "report", "latest", "--db", db)
			if !bytes.Contains([]byte(rep), []byte("Overall")) {
				t.Errorf("report has no Overall column:\n%s", rep)
			}
		})
	}
}

func checkExport(t *testing.T, path, system string, want int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for _, k := range []string{"conv_id", "turns", "agents_spoken", "metadata", "initial_emotion", "final_emotion", "emotion_trajectory", "user_big_five"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("line %d lacks %q", n, k)
			}
		}
		md, _ := rec["metadata"].(map[string]any)
		if md["schema_version"] != "1.0" || md["system"] != system || md["rubric_version"] != "paper_v1" {
			t.Errorf("line %d metadata = %v", n, md)
		}
		for _, k := range []string{"dataset", "persona_set", "director_model", "speaker_model", "user_model"} {
			if _, ok := md[k]; !ok {
				t.Errorf("line %d metadata lacks %q", n, k)
			}
		}
		turns, _ := rec["turns"].([]any)
		if len(turns) == 0 {
			t.Errorf("line %d has no turns", n)
		}
		for _, x := range turns {
			turn := x.(map[string]any)
			for _, k := range []string{"turn_idx", "round_id", "response"} {
				if _, ok := turn[k]; !ok {
					t.Errorf("line %d turn lacks %q: %v", n, k, turn)
				}
			}
		}
	}
	if n != want {
		t.Fatalf("%s: %d conversations, want %d", path, n, want)
	}
}

// TestPaperQMSumStage1AgainstFakeVLLM runs paper/qmsum by name on the
// QMSum data the repository ships (the test split and a train-split
// sample) through candidates, the rubric judge and persona pairs (the
// stages that need no Qwen3 weights), stage by stage with --only.
func TestPaperQMSumStage1AgainstFakeVLLM(t *testing.T) {
	data := sharedDataset(t, "qmsum")
	srv := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{Model: "google/gemma-3-27b-it"})
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	common := []string{"-t", "vllm=" + srv.URL(), "-t", "judge=" + judge.URL(), "-t", "data=" + data,
		"--db", db, "--runs-dir", filepath.Join(dir, "runs"), "--set", "datasets.train.limit=3"}
	for _, stage := range []string{"candidates", "judge_candidates", "persona_pairs"} {
		mascot(t, append([]string{"run", "paper/qmsum", "--only", stage}, common...)...)
	}
	plan := mascot(t, "plan", "paper/qmsum", "-t", "vllm="+srv.URL(), "-t", "judge="+judge.URL(), "-t", "data="+data,
		"--db", db, "--set", "datasets.train.limit=3")
	for _, want := range []string{"candidates", "persona_pairs", "persona_rm"} {
		if !bytes.Contains([]byte(plan), []byte(want)) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}
	out := mascot(t, "results", "show", "latest", "--db", db, "--json")
	var d struct {
		Counters map[string]int64 `json:"counters"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var cands, judgments, pairs int
	s := openStore(t, db)
	defer s.Close()
	for q, n := range map[string]*int{`SELECT COUNT(*) FROM candidates`: &cands,
		`SELECT COUNT(*) FROM judgments WHERE candidate_id IS NOT NULL`: &judgments, `SELECT COUNT(*) FROM pairs`: &pairs} {
		if err := s.Reader().QueryRow(q).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	// 3 queries x 4 meeting agents x K = 8.
	if cands != 96 {
		t.Errorf("%d candidates, want 96 (3 contexts x 4 agents x K=8)", cands)
	}
	if judgments < cands*5 {
		t.Errorf("%d candidate judgments for %d candidates, want at least 5 criteria each", judgments, cands)
	}
	if pairs == 0 {
		t.Errorf("no persona pairs built")
	}
	// `results show latest` is the persona_pairs run; its counters agree
	// with the rows.
	if got := d.Counters["num_pairs"]; got != int64(pairs) {
		t.Errorf("results show counts num_pairs = %d, the pairs table holds %d", got, pairs)
	}
}

// sharedDataset is a file of the real datasets shipped under
// testdata/datasets (MASCOT_SHARED_DATASETS overrides the directory).
func sharedDataset(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(realdata.File(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func openStore(t *testing.T, db string) *results.Store {
	t.Helper()
	s, err := results.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
