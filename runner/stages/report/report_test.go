package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
	rep "mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// storing is a stand-in stage with one unit that commits fn's rows.
type storing struct {
	env *runner.Env
	key string
	fn  func(env *runner.Env, key string, tx *results.Tx) error
}

func (s storing) Units(context.Context) ([]runner.Unit, error) {
	return []runner.Unit{{Key: "all", Inputs: s.key}}, nil
}

func (s storing) Run(context.Context, runner.Unit) (runner.Commit, error) {
	return func(tx *results.Tx) error { return s.fn(s.env, s.key, tx) }, nil
}

func fake(fn func(env *runner.Env, key string, tx *results.Tx) error) func(*runner.Env, schema.Stage) (runner.Stage, error) {
	return func(env *runner.Env, st schema.Stage) (runner.Stage, error) { return storing{env, st.Key, fn}, nil }
}

// episodes stores one evaluation episode per system.
func episodes(_ *runner.Env, _ string, tx *results.Tx) error {
	for i, system := range []string{"mascot", "baseline"} {
		if _, err := tx.InsertEpisode(results.Episode{Idx: i, System: system, Dataset: "esconv", Mode: "eval", Record: jsonl.Record{ConvID: "c1", Turns: []results.Turn{{AgentName: "The Anchor", Response: "i hear you"}}}}); err != nil {
			return err
		}
	}
	return nil
}

// judgeEpisodes scores fidelity by stage: the evaluation judge gives
// mascot 5 and the baseline 1, the training-time judge 3 to both; the
// evaluation judge also records a GRPO stage's held-out rewards.
func judgeEpisodes(env *runner.Env, key string, tx *results.Tx) error {
	rows, err := env.Store.Reader().Query(`SELECT id, system FROM episodes ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var js []results.Judgment
	for rows.Next() {
		var id int64
		var system string
		if err := rows.Scan(&id, &system); err != nil {
			return err
		}
		score := 3.0
		if key == "eval_judge" && system == "mascot" {
			score = 5
		} else if key == "eval_judge" {
			score = 1
		}
		js = append(js, results.Judgment{Judge: "rubric", Criterion: "fidelity", Score: score, EpisodeID: id})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.InsertJudgments(js); err != nil {
		return err
	}
	if key != "eval_judge" {
		return nil
	}
	_, err = tx.InsertMetrics([]results.Metric{{System: "speaker_grpo", Name: "heldout_reward_before", Value: 0.25},
		{System: "speaker_grpo", Name: "heldout_reward_after", Value: 0.75},
		{System: "dpo", Name: results.MetricHeldoutAccuracyBefore, Value: 0}, {System: "dpo", Name: results.MetricHeldoutAccuracy, Value: 0.75},
		{System: "dpo", Name: results.MetricHeldoutLossBefore, Value: 0.6931}, {System: "dpo", Name: results.MetricHeldoutLoss, Value: 0.5},
		{System: "dpo", Name: results.MetricHeldoutPairs, Value: 4},
		{System: "pre", Name: results.MetricHeldoutLossBefore, Value: 5.5}, {System: "pre", Name: results.MetricHeldoutLoss, Value: 2.5},
		{System: "pre", Name: results.MetricHeldoutExamples, Value: 3}, {System: "pre", Name: results.MetricHeldoutTokens, Value: 90}})
	return err
}

// TestReportCoversItsInputsOnly runs a report stage over an evaluation
// judge stage while another judge stage of the same run scores the same
// episodes: the tables, printed and written beside the run as report.md
// and report.json, hold only the evaluation judge's scores, and the
// held-out training rewards are printed.
func TestReportCoversItsInputsOnly(t *testing.T) {
	l := testspec.Load(t, `package spec

import "mascot.dev/experiments/personas"

name: "test/report"
datasets: es: {name: "esconv", path: "`+testspec.ESConv+`", limit: 1}
rosters: support: personas.emotional_support
endpoints: [N=("speaker" | "director" | "user")]: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
endpoints: {speaker: {}, director: {}, user: {}}
judges: rubric: {plugin: "rubric", endpoint: "speaker"}
stages: {
	eps: {kind: "episodes", mode: "eval", dataset: "es", roster: "support"}
	train_judge: {kind: "judge", items: "eps", level: "collective", judges: ["rubric"]}
	eval_judge: {kind: "judge", items: "eps", level: "collective", judges: ["rubric"], after: ["train_judge"]}
	tables: {kind: "report", inputs: ["eval_judge"], format: "markdown"}
}
`)
	dir := t.TempDir()
	store, err := results.Open(filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var out bytes.Buffer
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: filepath.Join(dir, "runs"), Out: &out,
		Registry: runner.Default.WithStage("episodes", "test", fake(episodes)).WithStage("judge", "test", fake(judgeEpisodes))})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(sum.RunDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r rep.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	means := map[string]float64{}
	for _, tb := range r.Tables {
		if tb.Level != results.LevelCollective {
			continue
		}
		for _, row := range tb.Rows {
			for i, c := range tb.Criteria {
				if c == "fidelity" {
					means[row.System] = row.Cells[i].Mean
				}
			}
		}
	}
	if means["mascot"] != 100 || means["baseline"] != 0 || len(means) != 2 {
		t.Errorf("fidelity means %v, want mascot 100 and baseline 0 (the evaluation judge's alone)\n%s", means, b)
	}
	md, err := os.ReadFile(filepath.Join(sum.RunDir, "report.md"))
	if err != nil || !strings.Contains(string(md), "mascot") || !strings.Contains(string(md), "baseline") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	for _, want := range []string{"| mascot", "Held-out evaluation of the trained models", "speaker_grpo", "0.2500 ->   0.7500  (+0.5000",
		"dpo                  accuracy 0.000 -> 0.750  loss 0.6931 -> 0.5000  (4 held-out pairs)",
		"pre                  loss 5.5000 -> 2.5000  perplexity 244.69 -> 12.18  (3 held-out examples, 90 tokens)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the printed report lacks %q:\n%s", want, out.String())
		}
	}
}
