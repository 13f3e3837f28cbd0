package web

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// The fixture: two finished runs over the same contexts (run-a, run-b) with
// systems mascot and zero-shot, a running run, and a sweep with two
// children. run-a also has candidates, pairs, judgments of candidates and a
// training curve.
var (
	fixSystems  = []string{"mascot", "zero-shot"}
	fixContexts = []string{"conv-001", "conv-002", "conv-003"}
)

func openStore(t testing.TB) *results.Store {
	t.Helper()
	st, err := results.Open(filepath.Join(t.TempDir(), "mascot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fptrOf(v float64) *float64 { return &v }

// seed writes the fixture.
func seed(t testing.TB, st *results.Store) {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	must(t, st.CreateRun(ctx, results.Run{ID: "run-a", Name: "paper-esconv", ConfigName: "paper/esconv",
		ConfigJSON: []byte(`{"dataset":"esconv","judge":{"model":"gpt-4o"}}`), Command: "mascot run paper/esconv",
		StartedAt: start}))
	must(t, st.CreateRun(ctx, results.Run{ID: "run-b", Name: "ablation-no-director", ConfigName: "ablation/esconv",
		StartedAt: start.Add(time.Hour)}))
	must(t, st.CreateRun(ctx, results.Run{ID: "run-live", Name: "live-run", ConfigName: "paper/qmsum",
		StartedAt: time.Now().Add(-time.Minute)}))
	for i, r := range []string{"run-a", "run-b"} {
		seedEpisodes(t, st, r, float64(i))
		must(t, st.FinishRun(ctx, r, results.RunDone, `{"ok":true}`))
	}
	must(t, st.UpsertStage(ctx, results.Stage{RunID: "run-a", Key: "generate", Kind: "dialogue", Status: "done",
		UnitsTotal: 1, UnitsDone: 1, StartedAt: start, FinishedAt: start.Add(2 * time.Minute)}))
	must(t, st.UpsertStage(ctx, results.Stage{RunID: "run-a", Key: "judge", Kind: "judge", Status: "done",
		UnitsTotal: 1, UnitsDone: 1}))
	must(t, st.UpsertStage(ctx, results.Stage{RunID: "run-live", Key: "generate", Kind: "dialogue", Status: "running",
		UnitsTotal: 40, UnitsDone: 13}))
	must(t, st.AddCounters(ctx, "run-a", "generate", map[string]int64{"llm_calls": 42, "tokens_out": 9000}))
	must(t, st.AddCounters(ctx, "run-b", "generate", map[string]int64{"llm_calls": 40}))
	seedCandidates(t, st, "run-a")
	seedTraining(t, st, "run-a")
	seedSweep(t, st, start)
	must(t, st.TagRun(context.Background(), "run-b", "ablation"))
}

func seedEpisodes(t testing.TB, st *results.Store, runID string, shift float64) {
	ctx := context.Background()
	gen := results.Unit{Fingerprint: "gen-" + runID, Kind: "dialogue", StageKey: "generate", RunID: runID}
	var eps []results.Episode
	must(t, st.CommitUnit(ctx, gen, func(tx *results.Tx) error {
		for _, conv := range fixContexts {
			for _, sys := range fixSystems {
				e := results.Episode{Idx: len(eps), System: sys, Dataset: "esconv", Valence: "negative",
					Record: jsonl.Record{ConvID: conv,
						Metadata: results.Metadata{PersonaSet: "esconv-5", DirectorModel: "qwen3-8b", SpeakerModel: "qwen3-8b",
							Extra: map[string]json.RawMessage{"situation": json.RawMessage(`"laid off after ten years at the plant (` + conv + `)"`)}},
						AgentsSpoken: map[string]int{"The Anchor": 1, "The Spark": 1}}}
				e.Turns = []results.Turn{
					{TurnIdx: 0, TurnType: "user", AgentName: "seeker", Response: fmt.Sprintf("I lost my job last week (%s)", conv)},
					{TurnIdx: 1, AgentName: "The Anchor", Response: fmt.Sprintf("That sounds really hard (%s).", map[string]string{"mascot": "warm", "zero-shot": "flat"}[sys]),
						Directive: &results.Directive{AgentName: "The Anchor", Action: "validate feelings", Tone: "warm"}},
					{TurnIdx: 2, AgentName: "The Spark", Response: "Maybe this is a chance to look at something new?",
						Directive: &results.Directive{AgentName: "The Spark", Action: "reframe", Tone: "upbeat"}},
				}
				id, err := tx.InsertEpisode(e)
				if err != nil {
					return err
				}
				e.ID = id
				eps = append(eps, e)
			}
		}
		return nil
	}))
	// Read back the turn ids for per-turn judgments.
	full, err := st.EpisodesForUnit(ctx, gen.Fingerprint)
	must(t, err)
	judge := results.Unit{Fingerprint: "judge-" + runID, Kind: "judge", StageKey: "judge", RunID: runID}
	must(t, st.CommitUnit(ctx, judge, func(tx *results.Tx) error {
		for k, e := range full {
			base := float64(2+k%3) + shift
			if e.System == "mascot" {
				base++
			}
			base = min(base, 5)
			for _, c := range []string{"fidelity", "engagement_contribution"} {
				if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: c, Score: base,
					EpisodeID: e.ID, Rationale: "the group stays on the seeker's problem"}); err != nil {
					return err
				}
			}
			if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: "empathetic_support",
				Agent: "The Anchor", Score: base, TurnID: e.Turns[1].ID,
				Rationale: "acknowledges the loss before offering help"}); err != nil {
				return err
			}
		}
		_, err := tx.InsertComparison(results.Comparison{Judge: "gpt-4o", ContextID: "conv-001",
			Systems: []string{"mascot", "zero-shot"}, Choice: "mascot", Rationale: "warmer"})
		return err
	}))
}

func seedCandidates(t testing.TB, st *results.Store, runID string) {
	ctx := context.Background()
	u := results.Unit{Fingerprint: "cand-" + runID, Kind: "sample", StageKey: "sample", RunID: runID}
	must(t, st.CommitUnit(ctx, u, func(tx *results.Tx) error {
		ids, err := tx.InsertCandidates([]results.Candidate{
			{Kind: "response", ContextID: "ctx-7", Persona: "The Anchor", SampleIdx: 0, Text: "I hear how heavy this is."},
			{Kind: "response", ContextID: "ctx-7", Persona: "The Anchor", SampleIdx: 1, Text: "Have you tried yoga?"},
		})
		if err != nil {
			return err
		}
		for i, sc := range []float64{5, 2} {
			if _, err := tx.InsertJudgment(results.Judgment{Judge: "gpt-4o", Criterion: "empathetic_support",
				Score: sc, CandidateID: ids[i], Rationale: fmt.Sprintf("rationale for candidate %d", i)}); err != nil {
				return err
			}
		}
		_, err = tx.InsertPair(results.Pair{ContextID: "ctx-7", Persona: "The Anchor", ChosenID: ids[0],
			RejectedID: ids[1], ChosenScore: 100, RejectedScore: 25, Margin: 75})
		return err
	}))
}

func seedTraining(t testing.TB, st *results.Store, runID string) {
	ctx := context.Background()
	u := results.Unit{Fingerprint: "train-" + runID, Kind: "grpo", StageKey: "train-grpo", RunID: runID}
	must(t, st.CommitUnit(ctx, u, func(tx *results.Tx) error {
		for s := 1; s <= 20; s++ {
			x := float64(s)
			if _, err := tx.InsertTrainingStep(results.TrainingStep{Step: s, Epoch: x / 20, Loss: fptrOf(2 / x),
				Reward: fptrOf(0.1 * x), KL: fptrOf(0.01 * x), LR: fptrOf(1e-5), GradNorm: fptrOf(1 + 1/x),
				Values: map[string]float64{"reward_std": 0.5, "clip_frac": 0.1}}); err != nil {
				return err
			}
		}
		_, err := tx.InsertMetrics([]results.Metric{
			{System: "train-grpo", Name: results.MetricHeldoutRewardBefore, Value: 0.25},
			{System: "train-grpo", Name: results.MetricHeldoutRewardAfter, Value: 0.75},
			{System: "train-grpo", Name: results.MetricHeldoutDeltaCILow, Value: 0.125},
			{System: "train-grpo", Name: results.MetricHeldoutDeltaCIHigh, Value: 0.875},
			{System: "train-grpo", Name: results.MetricHeldoutPrompts, Value: 7},
		})
		return err
	}))
	// A reward model evaluated on held-out pairs at the end of each of its
	// three epochs (4 steps each).
	rm := results.Unit{Fingerprint: "rm-" + runID, Kind: "train-reward-model", StageKey: "persona_rm", RunID: runID}
	must(t, st.CommitUnit(ctx, rm, func(tx *results.Tx) error {
		for s := 1; s <= 12; s++ {
			x := float64(s)
			row := results.TrainingStep{Step: s, Epoch: x / 4, Loss: fptrOf(0.7 / x), LR: fptrOf(1e-4)}
			if s%4 == 0 {
				row.Values = map[string]float64{"heldout_accuracy": 0.5 + x/40, "heldout_loss": 0.7 - x/40}
			}
			if _, err := tx.InsertTrainingStep(row); err != nil {
				return err
			}
		}
		_, err := tx.InsertMetrics([]results.Metric{
			{System: "persona_rm", Name: results.MetricHeldoutAccuracy, Value: 0.8},
			{System: "persona_rm", Name: results.MetricHeldoutLoss, Value: 0.4},
			{System: "persona_rm", Name: results.MetricHeldoutPairs, Value: 15},
		})
		return err
	}))
	// A DPO policy and a pretraining, scored before and after training.
	for k, ms := range map[string][]results.Metric{
		"dpo": {{Name: results.MetricHeldoutAccuracyBefore, Value: 0}, {Name: results.MetricHeldoutAccuracy, Value: 0.875},
			{Name: results.MetricHeldoutLossBefore, Value: 0.6931}, {Name: results.MetricHeldoutLoss, Value: 0.25},
			{Name: results.MetricHeldoutPairs, Value: 8}},
		"pre": {{Name: results.MetricHeldoutLossBefore, Value: 5.5}, {Name: results.MetricHeldoutLoss, Value: 2.5},
			{Name: results.MetricHeldoutExamples, Value: 4}, {Name: results.MetricHeldoutTokens, Value: 252}},
	} {
		u := results.Unit{Fingerprint: k + "-" + runID, Kind: k, StageKey: k, RunID: runID}
		must(t, st.CommitUnit(ctx, u, func(tx *results.Tx) error {
			for s := 1; s <= 3; s++ {
				if _, err := tx.InsertTrainingStep(results.TrainingStep{Step: s, Epoch: float64(s), Loss: fptrOf(1 / float64(s))}); err != nil {
					return err
				}
			}
			for i := range ms {
				ms[i].System = k
			}
			_, err := tx.InsertMetrics(ms)
			return err
		}))
	}
}

func seedSweep(t testing.TB, st *results.Store, start time.Time) {
	ctx := context.Background()
	must(t, st.CreateRun(ctx, results.Run{ID: "sweep", Name: "temp-sweep", ConfigName: "sweep/temp", StartedAt: start}))
	for i, temp := range []string{"0.2", "0.8"} {
		id := "sweep-" + temp
		must(t, st.CreateRun(ctx, results.Run{ID: id, Name: "temp=" + temp, ParentID: "sweep", ConfigName: "sweep/temp",
			AxesJSON: []byte(`{"axes":{"temperature":` + temp + `}}`), StartedAt: start}))
		seedEpisodes(t, st, id, float64(i))
		must(t, st.FinishRun(ctx, id, results.RunDone, "{}"))
	}
	must(t, st.FinishRun(ctx, "sweep", results.RunDone, "{}"))
}
