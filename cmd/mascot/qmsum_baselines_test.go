package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
)

// TestQMSumBaselinesAgainstFakeVLLM runs every QMSum baseline by name on
// the QMSum data the repository ships (the sft baseline trains on the
// train-split sample) against the fake vLLM server, through judging and
// the report, and checks the exported meeting records.
func TestQMSumBaselinesAgainstFakeVLLM(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	judge := fakevllm.Start(t, fakevllm.Options{Model: "google/gemma-3-27b-it"})
	data := sharedDataset(t, "qmsum")
	base := tinyBase(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	for _, b := range []string{"zero-shot", "zero-shot-cot", "few-shot", "few-shot-cot", "self-consistency", "sft"} {
		t.Run(b, func(t *testing.T) {
			args := []string{"run", "paper/qmsum/baselines/" + b, "-t", "vllm=" + srv.URL(), "-t", "judge=" + judge.URL(),
				"-t", "data=" + data, "--db", db, "--runs-dir", filepath.Join(dir, "runs"),
				"--set", "datasets.test.limit=2", "--set", "stages.eval.turns=2"}
			if b == "sft" {
				args = append(args, "--set", "datasets.train.limit=3", "--set", "stages.sft.base_model="+base,
					"--set", "stages.sft.max_steps=2", "--set", "stages.sft.lora.r=8")
			}
			mascot(t, args...)
			out := filepath.Join(dir, "export-"+b)
			mascot(t, "export", "latest", "--db", db, "--out", out)
			f, err := os.Open(filepath.Join(out, "conversations.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n := 0
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<26)
			for sc.Scan() {
				n++
				var rec struct {
					ID       string `json:"id"`
					Meeting  string `json:"meeting"`
					Metadata struct {
						System  string `json:"system"`
						Dataset string `json:"dataset"`
					} `json:"metadata"`
					Turns []map[string]any `json:"turns"`
				}
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				if rec.ID == "" || rec.Meeting == "" || rec.Metadata.System != b || rec.Metadata.Dataset != "qmsum" || len(rec.Turns) == 0 {
					t.Errorf("line %d: id %q meeting %q metadata %+v, %d turns", n, rec.ID, rec.Meeting, rec.Metadata, len(rec.Turns))
				}
			}
			if n != 2 {
				t.Fatalf("%d conversations exported, want 2", n)
			}
			if rep := mascot(t, "report", "latest", "--db", db); !strings.Contains(rep, "Overall") {
				t.Errorf("report has no Overall column:\n%s", rep)
			}
		})
	}
}
