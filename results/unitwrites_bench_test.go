package results_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/internal/benchdb"
	"mascot.dev/mascot/results"
)

// BenchmarkCandidatesUnitWrites makes the store writes the runner makes for
// one unit of the candidates stage (K = 4, a 2.5 kB prompt), from 64
// goroutines at once as the runner's units arrive: the claim, the commit
// (the candidates, the claim's release, the unit's counters and latency
// buckets) and the response cache rows of its four requests. It reports
// CPU per unit (cpu-ms/op): the store's share of the stage path's CPU.
// Fingerprints are SHA-256 hex and cache keys start with them, as the
// runner's do, so each unit's index entries land at random places as in a
// real stage (sequential names shared leaf pages and hid that cost).
func BenchmarkCandidatesUnitWrites(b *testing.B) { candidatesUnitWrites(b) }

// BenchmarkCandidatesUnitWritesDefaultVFS is BenchmarkCandidatesUnitWrites
// with the store's files opened through SQLite's default VFS instead of
// results/walvfs: the difference is what gathering a commit's log frames
// into few write calls saves. Interleave the two with -count.
func BenchmarkCandidatesUnitWritesDefaultVFS(b *testing.B) {
	defer results.UseWALVFS(results.UseWALVFS(false))
	candidatesUnitWrites(b)
}

func candidatesUnitWrites(b *testing.B) {
	ctx := context.Background()
	s, err := results.Open(filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if err := s.CreateRun(ctx, results.Run{ID: "r"}); err != nil {
		b.Fatal(err)
	}
	prompt := `[{"role":"system","content":"` + strings.Repeat("You are The Anchor, a calm companion. ", 60) + `"}]`
	text := strings.Repeat("I hear how heavy this week has been. ", 6)
	resp, _ := json.Marshal(map[string]any{"choices": []string{text}, "raw": []string{text}, "prompt_tokens": 600,
		"completion_tokens": 64, "latency": 20 * time.Millisecond, "attempts": 1, "model_id": "Qwen/Qwen3-8B",
		"url": "http://127.0.0.1:8000/v1"})
	counters := map[string]int64{}
	for _, n := range []string{"requests", "attempts", "retries_rate_limited", "retries_server", "retries_timeout",
		"retries_connection", "retries_other", "failures", "failures_rate_limited", "failures_server",
		"failures_timeout", "failures_connection", "failures_other", "tokens_in", "tokens_out", "cache_hits"} {
		counters["llm.speaker."+n] = 1
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	b.ResetTimer()
	defer benchdb.ReportCPU(b)()
	for range 64 {
		wg.Go(func() {
			for i := range jobs {
				fp := fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "u%d", i)))
				u := results.Unit{Fingerprint: fp, Kind: "candidates", StageKey: "cand", RunID: "r"}
				if _, err := s.ClaimAndStartUnit(ctx, u); err != nil {
					b.Error(err)
					return
				}
				err := s.LLMCache().PutMany(ctx, map[string]json.RawMessage{
					fp + "|speaker|" + fp[1:33]: resp, fp + "|speaker|" + fp[2:34]: resp,
					fp + "|speaker|" + fp[3:35]: resp, fp + "|speaker|" + fp[4:36]: resp})
				if err != nil {
					b.Error(err)
					return
				}
				err = s.CommitUnit(ctx, u, func(tx *results.Tx) error {
					rows := make([]results.Candidate, 4)
					for k := range rows {
						rows[k] = results.Candidate{Kind: "response", ContextID: fmt.Sprintf("c%d", i/3),
							Persona: "The Anchor", SampleIdx: k, Prompt: prompt, Text: text, ModelID: "Qwen/Qwen3-8B"}
					}
					if _, err := tx.InsertCandidates(rows); err != nil {
						return err
					}
					if err := tx.ReleaseClaim(); err != nil {
						return err
					}
					if err := tx.AddCounters("cand", counters); err != nil {
						return err
					}
					return tx.AddLatency("cand", []results.LatencyBucket{{Role: "speaker", LE: 25 * time.Millisecond, Count: 4}})
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	for i := 0; i < b.N; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	// Closing checkpoints what the log still holds: part of the writes'
	// cost, measured with them.
	closed = true
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}
