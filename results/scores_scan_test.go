package results

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

// scanFixture writes run r with enough units (2·pairs) for the scan to
// split them into parallel ranges: each pair is a generation unit of two
// episodes and a judge unit with turn judgments from two judges (1..5),
// per-agent episode judgments (0..10), collective judgments with a
// degenerate scale (raw scores), per-episode metrics (one of them doubles
// of any magnitude) and a candidate
// judgment that must not count. Every seventh pair's episodes stay
// unjudged. A unit of another run judges r's episodes and must not count
// either. It returns the judge unit fingerprints and the episode ids of
// each pair.
func scanFixture(t *testing.T, s *Store, pairs int) (judgeUnits []string, epsOf [][]int64) {
	t.Helper()
	ctx := context.Background()
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	systems := []string{"mascot", "zero-shot", "few-shot"}
	rng := rand.New(rand.NewPCG(1, 2))
	valences := []string{"positive", "negative", "", "neutral"}
	for u := range pairs {
		var ids []int64
		var turnIDs [][]int64
		gen := Unit{Fingerprint: fmt.Sprintf("gen-%04d", u), Kind: "episodes", StageKey: "gen", RunID: "r"}
		err := s.CommitUnit(ctx, gen, func(tx *Tx) error {
			for k := range 2 {
				i := 2*u + k
				ep := Episode{Idx: k, SampleIdx: i % 3, System: systems[i%3], Valence: valences[i%4],
					Record: jsonl.Record{ConvID: fmt.Sprintf("c%05d", i)}}
				if ep.Valence == "" && i%8 == 2 {
					ep.Domain = "product"
				}
				for tn := range 1 + i%3 {
					ep.Turns = append(ep.Turns, Turn{TurnIdx: tn, AgentName: "A", Response: "r"})
				}
				id, err := tx.InsertEpisode(ep)
				if err != nil {
					return err
				}
				var tids []int64
				if err := tx.SQL().QueryRow(`SELECT json_group_array(id) FROM (SELECT id FROM turns WHERE episode_id = ?
					ORDER BY turn_idx)`, id).Scan(jsonIDs{&tids}); err != nil {
					return err
				}
				ids = append(ids, id)
				turnIDs = append(turnIDs, tids)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		epsOf = append(epsOf, ids)
		fp := fmt.Sprintf("judge-%04d", u)
		judgeUnits = append(judgeUnits, fp)
		err = s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "judge", StageKey: "judge", RunID: "r"}, func(tx *Tx) error {
			if u%7 == 3 {
				return nil
			}
			cand, err := tx.InsertCandidate(Candidate{Kind: "response", ContextID: "x", Text: "t"})
			if err != nil {
				return err
			}
			js := []Judgment{{Judge: "j1", Criterion: "persona_consistency", Score: 5, CandidateID: cand}}
			for k, id := range ids {
				i := 2*u + k
				for tn, tid := range turnIDs[k] {
					for jn, judge := range []string{"j1", "j2"} {
						js = append(js, Judgment{Judge: judge, Criterion: "empathetic_support",
							Score: float64(1 + (i*3+tn*5+jn)%5), TurnID: tid})
					}
				}
				js = append(js, Judgment{Judge: "j1", Criterion: "persona_consistency", Agent: "A",
					Score: float64((i*7)%11) + 0.1*float64(i%3), ScaleMin: 0, ScaleMax: 10.3, EpisodeID: id})
				if i%5 != 0 {
					js = append(js, Judgment{Judge: "j1", Criterion: "fidelity", Score: float64(i%9) / 3,
						ScaleMin: 2, ScaleMax: 2, EpisodeID: id})
				}
				if _, err := tx.InsertMetric(Metric{EpisodeID: id, System: systems[i%3], Name: "distinct_2",
					Value: float64(i%13) / 7}); err != nil {
					return err
				}
				if _, err := tx.InsertMetric(Metric{EpisodeID: id, System: systems[i%3], Name: "raw",
					Value: wildFloat(rng)}); err != nil {
					return err
				}
			}
			_, err = tx.InsertJudgments(js)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := s.CommitUnit(ctx, Unit{Fingerprint: "elsewhere", Kind: "judge", StageKey: "judge", RunID: "other"},
		func(tx *Tx) error {
			_, err := tx.InsertJudgment(Judgment{Judge: "j9", Criterion: "fidelity", Score: 1, EpisodeID: epsOf[0][0]})
			return err
		})
	if err != nil {
		t.Fatal(err)
	}
	return judgeUnits, epsOf
}

// wildFloat returns finite doubles of any magnitude and sign, with all
// mantissa bits in use: the values a text round trip could get wrong.
func wildFloat(r *rand.Rand) float64 {
	for {
		v := math.Float64frombits(r.Uint64())
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v
		}
	}
}

type jsonIDs struct{ dst *[]int64 }

func (j jsonIDs) Scan(v any) error {
	s, _ := v.(string)
	return json.Unmarshal([]byte(s), j.dst)
}

// sameGroups compares score groups exactly (values bit for bit, NaN = NaN).
func sameGroups(t *testing.T, what string, got, want []ScoreGroup) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d groups, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		id := fmt.Sprintf("%s group %s/%s/%s", what, w.Level, w.System, w.Split)
		if g.Level != w.Level || g.System != w.System || g.Split != w.Split {
			t.Fatalf("%s: got %s/%s/%s", id, g.Level, g.System, g.Split)
		}
		if fmt.Sprint(g.Criteria, g.Episodes, g.Keys) != fmt.Sprint(w.Criteria, w.Episodes, w.Keys) {
			t.Fatalf("%s: criteria/episodes/keys differ:\n got %v %v\nwant %v %v", id, g.Criteria, g.Episodes,
				w.Criteria, w.Episodes)
		}
		for c := range w.Values {
			for e := range w.Values[c] {
				if math.Float64bits(g.Values[c][e]) != math.Float64bits(w.Values[c][e]) {
					t.Fatalf("%s: %s of episode %d = %v, want %v", id, w.Criteria[c], w.Episodes[e],
						g.Values[c][e], w.Values[c][e])
				}
			}
		}
	}
}

// TestScoreGroupsEqualsReferenceScan checks that the raw-driver scan
// (normalisation in Go, parallel ranges, dense positions) returns exactly
// what the previous database/sql scan with normalisation in SQL returned.
func TestScoreGroupsEqualsReferenceScan(t *testing.T) {
	s := openTemp(t)
	scanFixture(t, s, 1200) // over 1000 units with values: two ranges of at least 500
	ctx := context.Background()
	if b, err := s.unitRanges(ctx, "r", nil, 2); err != nil || len(b) != 1 {
		t.Fatalf("fixture should be split in two ranges: %v %v", b, err)
	}
	for _, split := range []string{"auto", "none", "domain"} {
		got, err := s.ScoreGroups(ctx, "r", split)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.refScoreGroups(ctx, "r", split)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 9 {
			t.Fatalf("split %s: only %d groups", split, len(want))
		}
		sameGroups(t, "split "+split, got, want)
	}
	// One hand-checked value: episode 1 (i=0, mascot, positive, one turn):
	// empathy = mean over j1, j2 of 100·(s−1)/4 with s = 1, 2 → 12.5;
	// consistency 0/10 → 0; no Fidelity (i%5 == 0); distinct_2 = 0.
	got, _ := s.ScoreGroups(ctx, "r", "none")
	if v := valueOf(t, got, LevelAgent, "mascot", "empathetic_support", 1); v != 12.5 {
		t.Errorf("empathy of episode 1 = %v, want 12.5", v)
	}
	if v := valueOf(t, got, LevelCollective, "mascot", "fidelity", 1); !math.IsNaN(v) {
		t.Errorf("fidelity of episode 1 = %v, want none", v)
	}
	// Episode 3 (i=2, few-shot): Fidelity raw 2/3 (degenerate scale).
	if v := valueOf(t, got, LevelCollective, "few-shot", "fidelity", 3); v != 2.0/3 {
		t.Errorf("fidelity of episode 3 = %v, want 2/3", v)
	}
}

func valueOf(t *testing.T, gs []ScoreGroup, level, system, crit string, ep int64) float64 {
	t.Helper()
	for _, g := range gs {
		if g.Level != level || g.System != system {
			continue
		}
		for c, name := range g.Criteria {
			if name != crit {
				continue
			}
			for i, id := range g.Episodes {
				if id == ep {
					return g.Values[c][i]
				}
			}
		}
		return math.NaN()
	}
	t.Fatalf("no group %s/%s", level, system)
	return 0
}

// TestScoreGroupsInUnits restricts the scan to half the judge units: the
// groups hold exactly the episodes those units scored, with the values the
// whole-run scan gives them.
func TestScoreGroupsInUnits(t *testing.T) {
	s := openTemp(t)
	judgeUnits, epsOf := scanFixture(t, s, 30)
	ctx := context.Background()
	var units []string
	scored := map[int64]bool{}
	for u, fp := range judgeUnits {
		if u%2 == 0 {
			units = append(units, fp)
			if u%7 != 3 {
				for _, id := range epsOf[u] {
					scored[id] = true
				}
			}
		}
	}
	all, err := s.ScoreGroups(ctx, "r", "none")
	if err != nil {
		t.Fatal(err)
	}
	some, err := s.ScoreGroupsIn(ctx, "r", "none", Scope{Units: units})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range some {
		if g.Level != LevelAgent {
			continue
		}
		for i, id := range g.Episodes {
			n++
			if !scored[id] {
				t.Errorf("episode %d of an unselected unit in %s", id, g.System)
			}
			for c, crit := range g.Criteria {
				if w := valueOf(t, all, g.Level, g.System, crit, id); math.Float64bits(w) != math.Float64bits(g.Values[c][i]) {
					t.Errorf("%s of episode %d = %v, want %v", crit, id, g.Values[c][i], w)
				}
			}
		}
	}
	// 15 even pairs of two episodes, less pairs 10 and 24 (u%7 == 3).
	if n != len(scored) || n != 26 {
		t.Errorf("agent-level episodes = %d, want %d = 26", n, len(scored))
	}
	none, err := s.ScoreGroupsIn(ctx, "r", "none", Scope{Units: []string{}})
	if err != nil || len(none) != 0 {
		t.Errorf("no units: %d groups, %v", len(none), err)
	}
	stage, err := s.StageUnits(ctx, "r", []string{"judge"})
	if err != nil || len(stage) != len(judgeUnits) {
		t.Errorf("StageUnits(judge) = %d units, %v; want %d", len(stage), err, len(judgeUnits))
	}
	if _, err := s.StageUnits(ctx, "r", []string{"judge", "nope"}); err == nil {
		t.Error("StageUnits accepted an unknown stage")
	}
}
