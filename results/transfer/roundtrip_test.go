package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

func readLines(t *testing.T, path string) []any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// TestImportExportRoundTrip imports a file holding every field of the
// schema (ED, QMSum and ESConv shapes, user turns, null directive, keys
// outside the schema, a record missing optional keys) and checks that the
// export equals it record by record as JSON values, plus the stage and mode
// every export adds (stage "import", mode "imported").
func TestImportExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	src := filepath.Join(t.TempDir(), "in", "conversations.jsonl")
	os.MkdirAll(filepath.Dir(src), 0o755)
	data, err := os.ReadFile("../testdata/mascot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(src, data, 0o644)
	os.WriteFile(filepath.Join(filepath.Dir(src), RunConfigFile), []byte(`{"experiment":"paper/ed","k":8}`), 0o644)

	res, err := Import(ctx, s, src, "python-ed")
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != 4 || res.Reused {
		t.Fatalf("import %+v", res)
	}
	out := t.TempDir()
	ex, err := Export(ctx, s, res.RunID, out, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Episodes != 4 {
		t.Fatalf("exported %d", ex.Episodes)
	}
	want, got := readLines(t, src), readLines(t, ex.Path)
	for _, w := range want {
		w.(map[string]any)[RecordStageKey], w.(map[string]any)[RecordModeKey] = "import", results.ModeImported
	}
	if len(want) != len(got) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			a, _ := json.Marshal(want[i])
			b, _ := json.Marshal(got[i])
			t.Errorf("record %d differs:\nwant %s\ngot  %s", i, a, b)
		}
	}
	var cfg, summary map[string]any
	b, _ := os.ReadFile(filepath.Join(out, RunConfigFile))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg["experiment"] != "paper/ed" {
		t.Fatalf("run_config.json %s %v", b, err)
	}
	b, _ = os.ReadFile(filepath.Join(out, RunSummaryFile))
	if err := json.Unmarshal(b, &summary); err != nil || summary["status"] != results.RunImported || summary["episodes"] != 4.0 {
		t.Fatalf("run_summary.json %s %v", b, err)
	}

	// Splits were derived; typed fields were filled.
	page, err := s.EpisodesPage(ctx, results.EpisodeQuery{RunID: res.RunID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	splits := map[string]string{}
	for _, e := range page.Episodes {
		splits[e.ConvID] = e.Valence + e.Domain
	}
	wantSplits := map[string]string{"hit:12_conv:24": "negative", "7": "product", "esconv-0003": "negative", "minimal-1": ""}
	if !reflect.DeepEqual(splits, wantSplits) {
		t.Fatalf("splits %v", splits)
	}

	// Importing the same bytes again reuses the unit.
	again, err := Import(ctx, s, src, "")
	if err != nil || !again.Reused || again.Episodes != 4 || again.RunID == res.RunID {
		t.Fatalf("re-import %+v %v", again, err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 4 {
		t.Fatalf("%d episodes after re-import", n)
	}
}

// TestEncodeRuntimeEpisode checks what the runner's episodes look like in
// the export: every metadata field, schema_version 1.0, absent optionals.
func TestEncodeRuntimeEpisode(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r1")
	ep := sampleEpisode("conv-1")
	ep.AgentsSpoken = map[string]int{"The Anchor": 1}
	ep.InitialEmotion = strp("sad")
	err := s.CommitUnit(ctx, results.Unit{Fingerprint: "f", Kind: "episodes", StageKey: "g", RunID: "r1"}, func(tx *results.Tx) error {
		_, err := tx.InsertEpisode(ep)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got *results.Episode
	if err := s.ForEachEpisode(ctx, "r1", func(e *results.Episode) error { got = e; return nil }); err != nil {
		t.Fatal(err)
	}
	line, err := jsonl.Encode(&got.Record)
	if err != nil {
		t.Fatal(err)
	}
	var v, want any
	json.Unmarshal(line, &v)
	json.Unmarshal([]byte(`{"conv_id":"conv-1","turns":[
		{"turn_idx":0,"round_id":0,"directive":{"agent_name":"The Anchor","action":"validate","tone":"calm"},"agent_name":"The Anchor","response":"I hear you."},
		{"turn_idx":1,"round_id":0,"turn_type":"user","agent_name":"user","response":"thanks"}],
		"agents_spoken":{"The Anchor":1},
		"metadata":{"schema_version":"1.0","system":"mascot","dataset":"empathetic_dialogues","persona_set":"default",
		"director_model":"","speaker_model":"","user_model":"","rubric_version":"paper_v1"},
		"initial_emotion":"sad"}`), &want)
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %s", line)
	}
}
