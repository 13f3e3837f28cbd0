package results

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestEpisodesPageKeyset walks every page of a run and checks order,
// completeness, filters and search.
func TestEpisodesPageKeyset(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	mustRun(t, s, "other")
	for u := range 5 {
		run := "r"
		if u == 4 {
			run = "other" // not linked to r: must not show up
		}
		err := s.CommitUnit(ctx, Unit{Fingerprint: fmt.Sprintf("u%d", u), Kind: "episodes", StageKey: "g", RunID: run},
			func(tx *Tx) error {
				for i := range 20 {
					ep := sampleEpisode(fmt.Sprintf("conv-%02d-%02d", 19-i, u))
					ep.Idx = i
					if i%2 == 0 {
						ep.System = "zero-shot"
					}
					if i == 7 {
						ep.Turns[0].Response = "a needle_in 100% of haystacks"
					}
					if _, err := tx.InsertEpisode(ep); err != nil {
						return err
					}
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	var all []EpisodeSummary
	after := ""
	pages := 0
	for {
		p, err := s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", Limit: 7, After: after})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, p.Episodes...)
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	if len(all) != 80 || pages != 12 {
		t.Fatalf("%d episodes in %d pages", len(all), pages)
	}
	seen := map[int64]bool{}
	for i, e := range all {
		if seen[e.ID] {
			t.Fatalf("episode %d twice", e.ID)
		}
		seen[e.ID] = true
		if i > 0 && (all[i-1].ConvID > e.ConvID || (all[i-1].ConvID == e.ConvID && all[i-1].ID > e.ID)) {
			t.Fatalf("out of order at %d: %s after %s", i, e.ConvID, all[i-1].ConvID)
		}
	}
	p, _ := s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", System: "zero-shot", Limit: 1000})
	if len(p.Episodes) != 40 {
		t.Fatalf("system filter: %d", len(p.Episodes))
	}
	p, _ = s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", ConvID: "conv-12", Limit: 1000})
	if len(p.Episodes) != 4 {
		t.Fatalf("conv prefix: %d", len(p.Episodes))
	}
	p, _ = s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", Text: "needle_in 100%", Limit: 1000})
	if len(p.Episodes) != 4 || p.Episodes[0].ConvID != "conv-12-00" {
		t.Fatalf("text search: %+v", p.Episodes)
	}
	p, _ = s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", Text: "needle_in 1000%", Limit: 1000})
	if len(p.Episodes) != 0 {
		t.Fatal("LIKE wildcards not escaped")
	}
	if _, err := s.EpisodesPage(ctx, EpisodeQuery{RunID: "r", After: "!!"}); err == nil {
		t.Fatal("bad cursor accepted")
	}
	v, err := s.GetEpisodeView(ctx, all[0].ID, "r")
	if err != nil || len(v.Episode.Turns) != 2 || v.Episode.Turns[0].Directive == nil {
		t.Fatalf("view %+v %v", v, err)
	}
}

// TestConcurrentCommits commits units from many goroutines (the runner's
// pattern) while reading; every unit lands once.
func TestConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				fp := fmt.Sprintf("u%d", i) // every worker races on the same 25 units
				err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "episodes", StageKey: "g", RunID: "r"}, func(tx *Tx) error {
					_, err := tx.InsertEpisode(sampleEpisode(fp))
					return err
				})
				if err != nil {
					errs <- err
				}
				if _, err := s.DoneUnits(ctx, []string{fp}); err != nil {
					errs <- err
				}
				_ = w
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 25 {
		t.Fatalf("%d episodes, want 25", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM turns`); n != 50 {
		t.Fatalf("%d turns, want 50", n)
	}
}

func TestCandidatesPairsCurvesArtifacts(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustRun(t, s, "r")
	var ids []int64
	err := s.CommitUnit(ctx, Unit{Fingerprint: "cand", Kind: "candidates", StageKey: "cand", RunID: "r"}, func(tx *Tx) error {
		var err error
		ids, err = tx.InsertCandidates([]Candidate{
			{ContextID: "q1", Persona: "Anchor", SampleIdx: 0, Text: "a"},
			{ContextID: "q1", Persona: "Anchor", SampleIdx: 1, Text: "b"},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.CommitUnit(ctx, Unit{Fingerprint: "judge", Kind: "judge", StageKey: "judge", RunID: "r"}, func(tx *Tx) error {
		_, err := tx.InsertJudgments([]Judgment{
			{Judge: "j", Criterion: "persona_consistency", Score: 5, CandidateID: ids[0]},
			{Judge: "j", Criterion: "Empathy", Score: 4, CandidateID: ids[0]},
			{Judge: "j", Criterion: "persona_consistency", Score: 2, CandidateID: ids[1]},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.CommitUnit(ctx, Unit{Fingerprint: "pairs", Kind: "pairs", StageKey: "pairs", RunID: "r"}, func(tx *Tx) error {
		_, err := tx.InsertPair(Pair{ContextID: "q1", Persona: "Anchor", ChosenID: ids[0], RejectedID: ids[1],
			ChosenScore: 87.5, RejectedScore: 25, Margin: 62.5})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	train := Unit{Fingerprint: "train", Kind: "train-reward-model", StageKey: "rm", RunID: "r"}
	for step := range 3 {
		loss := 1.0 / float64(step+1)
		err := s.WithUnit(ctx, train, func(tx *Tx) error {
			_, err := tx.InsertTrainingStep(TrainingStep{Step: step, Loss: &loss, Values: map[string]float64{"acc": 0.5}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if done, _ := s.UnitDone(ctx, "train"); done {
		t.Fatal("WithUnit marked the unit done")
	}
	err = s.CommitUnit(ctx, train, func(tx *Tx) error {
		_, err := tx.InsertArtifact(Artifact{Kind: "reward-model", Path: "out/rm/model.safetensors", SHA256: "ab", Bytes: 3})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Candidates(ctx, "r", "q1")
	if err != nil || len(cs) != 2 {
		t.Fatalf("%v %v", cs, err)
	}
	if cs[0].MeanScore != 87.5 || cs[0].NumJudgments != 2 || cs[0].PairsChosen != 1 || cs[1].PairsLost != 1 || cs[1].MeanScore != 25 {
		t.Fatalf("scores %+v", cs)
	}
	ps, _ := s.Pairs(ctx, "r", "")
	if len(ps) != 1 || ps[0].Margin != 62.5 {
		t.Fatalf("pairs %+v", ps)
	}
	curves, err := s.TrainingCurves(ctx, "r")
	if err != nil || len(curves) != 1 || len(curves[0].Steps) != 3 || *curves[0].Steps[2].Loss != 1.0/3 ||
		curves[0].StageKey != "rm" || curves[0].Steps[0].Values["acc"] != 0.5 {
		t.Fatalf("curves %+v %v", curves, err)
	}
	arts, _ := s.Artifacts(ctx, "r")
	if len(arts) != 1 || arts[0].SHA256 != "ab" {
		t.Fatalf("artifacts %+v", arts)
	}
}
