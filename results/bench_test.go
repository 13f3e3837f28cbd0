package results_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/benchdb"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// BenchmarkInsertTurns measures batched turn inserts: one unit commit of
// 1000 turns per iteration (reported as turns/s).
func BenchmarkInsertTurns(b *testing.B) {
	ctx := context.Background()
	s, err := results.Open(filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateRun(ctx, results.Run{ID: "r"}); err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	turns := make([]results.Turn, batch)
	for i := range turns {
		turns[i] = results.Turn{TurnIdx: i, AgentName: "The Anchor", Response: "a response of ordinary length, about a line"}
	}
	b.ResetTimer()
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		u := results.Unit{Fingerprint: fmt.Sprintf("u%d", i), Kind: "episodes", StageKey: "g", RunID: "r"}
		err := s.CommitUnit(ctx, u, func(tx *results.Tx) error {
			id, err := tx.InsertEpisode(results.Episode{System: "mascot", Record: jsonl.Record{ConvID: u.Fingerprint}})
			if err != nil {
				return err
			}
			for k := range turns {
				turns[k].EpisodeID = id
			}
			_, err = tx.InsertTurns(turns)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "turns/s")
}

func open100k(b *testing.B) *results.Store { return benchdb.Open(b, 100_000) }

// BenchmarkEpisodesPage100k measures a keyset page (50 rows) in the middle
// of a 100,000-episode run, unfiltered, filtered by system, and by conv_id
// prefix.
func BenchmarkEpisodesPage100k(b *testing.B) {
	ctx := context.Background()
	s := open100k(b)
	first, err := s.EpisodesPage(ctx, results.EpisodeQuery{RunID: benchdb.RunID, Limit: 1000})
	if err != nil || first.Next == "" {
		b.Fatal(err)
	}
	// Walk to the middle once to get a deep cursor.
	cur := first.Next
	for range 49 {
		p, err := s.EpisodesPage(ctx, results.EpisodeQuery{RunID: benchdb.RunID, Limit: 1000, After: cur})
		if err != nil {
			b.Fatal(err)
		}
		cur = p.Next
	}
	for _, c := range []struct {
		name  string
		q     results.EpisodeQuery
		empty bool
	}{
		{"plain", results.EpisodeQuery{RunID: benchdb.RunID, After: cur}, false},
		{"system", results.EpisodeQuery{RunID: benchdb.RunID, After: cur, System: "multiagent-esc"}, false},
		{"conv_prefix", results.EpisodeQuery{RunID: benchdb.RunID, ConvID: "esconv-0777"}, false},
		// Text search: a word in every turn, a number in a few, a word in none
		// (the case that read every turn of the run before the index).
		{"text_common", results.EpisodeQuery{RunID: benchdb.RunID, Text: "heavy this week"}, false},
		{"text_rare", results.EpisodeQuery{RunID: benchdb.RunID, Text: "777772"}, false},
		{"text_absent", results.EpisodeQuery{RunID: benchdb.RunID, Text: "zebra"}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer benchdb.ReportCPU(b)()
			for i := 0; i < b.N; i++ {
				p, err := s.EpisodesPage(ctx, c.q)
				if err != nil || (len(p.Episodes) == 0) != c.empty {
					b.Fatal(err, len(p.Episodes))
				}
			}
		})
	}
}

// BenchmarkCommitJudgments commits judge units (one episode, 40 judgments
// and 2 metrics each, the benchmark database's shape) into a run that
// links many units: the write cost of the per-unit score sums and the
// run's list of units with values.
func BenchmarkCommitJudgments(b *testing.B) {
	// stamped: the run has a report cache stamp (its report was asked for
	// while it runs), so every write bumps it (migration 0010).
	for _, stamped := range []bool{false, true} {
		b.Run(map[bool]string{false: "unstamped", true: "stamped"}[stamped], func(b *testing.B) {
			benchCommitJudgments(b, stamped)
		})
	}
}

func benchCommitJudgments(b *testing.B, stamped bool) {
	ctx := context.Background()
	s, err := results.Open(filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateRun(ctx, results.Run{ID: "r"}); err != nil {
		b.Fatal(err)
	}
	if stamped {
		if _, _, err := s.CachedResult(ctx, "probe", []string{"r"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	defer benchdb.ReportCPU(b)()
	for i := 0; i < b.N; i++ {
		var ep int64
		gen := results.Unit{Fingerprint: fmt.Sprintf("g%d", i), Kind: "episodes", StageKey: "g", RunID: "r"}
		err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
			var err error
			ep, err = tx.InsertEpisode(results.Episode{System: "mascot", Record: jsonl.Record{ConvID: gen.Fingerprint}})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		u := results.Unit{Fingerprint: fmt.Sprintf("j%d", i), Kind: "judge", StageKey: "j", RunID: "r"}
		err = s.CommitUnit(ctx, u, func(tx *results.Tx) error {
			js := make([]results.Judgment, 40)
			for k := range js {
				js[k] = results.Judgment{Judge: "j", Criterion: fmt.Sprintf("c%d", k%10), Score: float64(1 + k%5),
					EpisodeID: ep}
			}
			if _, err := tx.InsertJudgments(js); err != nil {
				return err
			}
			_, err := tx.InsertMetrics([]results.Metric{{Name: "distinct_1", Value: 0.5, EpisodeID: ep},
				{Name: "distinct_2", Value: 0.7, EpisodeID: ep}})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*40)/b.Elapsed().Seconds(), "judgments/s")
}
