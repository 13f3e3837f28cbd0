package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// benchEpisodes is the size of the benchmark run.
const benchEpisodes = 100_000

// benchDB returns (building it once, cached under the OS temp dir) a store
// with 50 small runs and one run of 100,000 episodes (5 turns, a directive
// per agent turn, 3 episode judgments and 1 turn judgment each), and the
// id of an episode in the middle of the big run.
func benchDB(b *testing.B) (*results.Store, int64) {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mascot-web-bench-v1-%d.db", benchEpisodes))
	if _, err := os.Stat(path); err != nil {
		tmp := path + ".building"
		for _, suf := range []string{"", "-wal", "-shm"} {
			os.Remove(tmp + suf)
		}
		st, err := results.Open(tmp)
		must(b, err)
		buildBench(b, st)
		must(b, st.Close())
		for _, suf := range []string{"-wal", "-shm"} {
			os.Remove(tmp + suf)
		}
		must(b, os.Rename(tmp, path))
	}
	st, err := results.Open(path)
	must(b, err)
	b.Cleanup(func() { st.Close() })
	var mid int64
	must(b, st.Reader().QueryRow(`SELECT id FROM episodes WHERE run_id = 'big' ORDER BY id LIMIT 1 OFFSET ?`,
		benchEpisodes/2).Scan(&mid))
	return st, mid
}

func buildBench(b *testing.B, st *results.Store) {
	ctx := context.Background()
	for i := range 50 {
		id := fmt.Sprintf("small-%02d", i)
		must(b, st.CreateRun(ctx, results.Run{ID: id, Name: id, ConfigName: "paper/esconv"}))
		must(b, st.UpsertStage(ctx, results.Stage{RunID: id, Key: "generate", Kind: "dialogue", Status: "done", UnitsTotal: 1, UnitsDone: 1}))
		must(b, st.AddCounters(ctx, id, "generate", map[string]int64{"llm_calls": int64(i)}))
		must(b, st.FinishRun(ctx, id, results.RunDone, "{}"))
	}
	must(b, st.CreateRun(ctx, results.Run{ID: "big", Name: "big", ConfigName: "paper/esconv",
		ConfigJSON: []byte(`{"episodes":100000}`)}))
	const perUnit = 1000
	systems := []string{"mascot", "zero-shot", "few-shot-cot", "multiagent-esc"}
	for u := 0; u*perUnit < benchEpisodes; u++ {
		unit := results.Unit{Fingerprint: fmt.Sprintf("big-%03d", u), Kind: "dialogue", StageKey: "generate", RunID: "big"}
		must(b, st.CommitUnit(ctx, unit, func(tx *results.Tx) error {
			for i := u * perUnit; i < (u+1)*perUnit; i++ {
				e := results.Episode{Idx: i, System: systems[i%4], Dataset: "esconv", Valence: "negative",
					Record: jsonl.Record{ConvID: fmt.Sprintf("conv-%06d", i/4)}}
				for k := range 5 {
					t := results.Turn{TurnIdx: k, AgentName: "The Anchor",
						Response: fmt.Sprintf("turn %d of conversation %d, a response of ordinary length", k, i)}
					if k%2 == 0 {
						t.TurnType, t.AgentName = "user", "seeker"
					} else {
						t.Directive = &results.Directive{AgentName: "The Anchor", Action: "validate", Tone: "warm"}
					}
					e.Turns = append(e.Turns, t)
				}
				id, err := tx.InsertEpisode(e)
				if err != nil {
					return err
				}
				for c, crit := range []string{"fidelity", "originality_specificity", "relevance_coherence"} {
					if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: crit,
						Score: float64(1 + (i+c)%5), EpisodeID: id, Rationale: "a short rationale"}); err != nil {
						return err
					}
				}
			}
			return nil
		}))
	}
	must(b, st.UpsertStage(ctx, results.Stage{RunID: "big", Key: "generate", Kind: "dialogue", Status: "done",
		UnitsTotal: benchEpisodes / perUnit, UnitsDone: benchEpisodes / perUnit}))
	must(b, st.FinishRun(ctx, "big", results.RunDone, "{}"))
}

// BenchmarkPages measures server-side rendering (handler only, through
// httptest.ResponseRecorder) of the runs list, the 100,000-episode run's
// page, a conversation page and a conversations page, with 100,000
// episodes in the database.
func BenchmarkPages(b *testing.B) {
	st, mid := benchDB(b)
	h, err := NewHandler(st, Options{Patience: time.Hour})
	must(b, err)
	for _, c := range []struct{ name, path string }{
		{"runs_list", "/"},
		{"run", "/runs/big"},
		{"conversation", "/episodes/" + strconv.FormatInt(mid, 10) + "?run=big"},
		{"conversations_page", "/runs/big/episodes?q=" + "conversation+" + strconv.Itoa(benchEpisodes/2)},
		{"conversations_first", "/runs/big/episodes"},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Host = "127.0.0.1" // the viewer's guard serves loopback hosts only
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d\n%s", c.path, rec.Code, rec.Body)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
		})
	}
}

// BenchmarkReportPage measures the whole-run pages on the 100,000-episode
// run: the report (1000 bootstrap resamples) and the rater page (random
// context pick).
func BenchmarkReportPage(b *testing.B) {
	st, _ := benchDB(b)
	h, err := NewHandler(st, Options{Patience: time.Hour})
	must(b, err)
	for _, c := range []struct{ name, path string }{
		{"report", "/runs/big/report"},
		{"rate", "/rate?run=big&rater=bench"},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Host = "127.0.0.1" // the viewer's guard serves loopback hosts only
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d\n%s", c.path, rec.Code, rec.Body)
				}
			}
		})
	}
}
