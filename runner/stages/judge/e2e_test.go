package judge_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/testspec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// spec writes an experiment over the demo ESConv data: candidates (K=4)
// judged and paired, and (fake) episodes judged per agent and
// collectively, with self-BLEU and distinct-n.
func spec(t *testing.T, url, extra string) *schema.Loaded {
	t.Helper()
	src := `package spec

import "mascot.dev/experiments/personas"

name: "test/judge"
datasets: es: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3}
datasets: test: {name: "esconv", path: "` + testspec.ESConv + `", limit: 3, exclude: ["es"]}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s"}
endpoints: judge: {urls: ["` + url + `"], model: "Qwen/Qwen3-8B", retries: 2, timeout: "5s", sampling: temperature: 0}
judges: rubric: {plugin: "rubric", endpoint: "judge"}
metrics: "self-bleu": {plugin: "self-bleu"}
metrics: "distinct-n": {plugin: "distinct-n"}
stages: {
	cand: {kind: "candidates", dataset: "es", roster: "support", k: 4}
	judge_cand: {kind: "judge", items: "cand", judges: ["rubric"]}
	persona_pairs: {kind: "pairs", judged: "judge_cand"}
	eval: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", director: "speaker", user: "speaker"}
	judge_agent: {kind: "judge", items: "eval", level: "agent", judges: ["rubric"]}
	judge_coll: {kind: "judge", items: "eval", level: "collective", judges: ["rubric"]}
	metrics_eval: {kind: "metrics", episodes: "eval", metrics: ["self-bleu", "distinct-n"]}
}
` + extra
	l := testspec.Load(t, src)
	return l
}

func execute(t *testing.T, l *schema.Loaded, store *results.Store) *runner.Summary {
	t.Helper()
	sum, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Registry: runner.Default.WithStage("episodes", "test", fakeEpisodes), Services: runner.Services{Plugins: starter{mascotBin(t)}}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return sum
}

func count(t *testing.T, store *results.Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

var agentCriteria = []string{"emotional_expressiveness", "empathetic_support", "persona_consistency",
	"response_relevance", "social_contribution"}

func TestCandidatesJudgedAndPaired(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	execute(t, spec(t, srv.URL(), ""), store)

	// 3 contexts x 3 personas x K=4 candidates, each with the 5 per-agent
	// criteria from the judge model ("rubric/judge") and pooled ("rubric").
	if n := count(t, store, `SELECT COUNT(*) FROM candidates`); n != 36 {
		t.Fatalf("%d candidates, want 36", n)
	}
	for _, c := range agentCriteria {
		for _, judge := range []string{"rubric", "rubric/judge"} {
			n := count(t, store, `SELECT COUNT(DISTINCT candidate_id) FROM judgments WHERE criterion = ? AND judge = ?
				AND score BETWEEN 1 AND 5 AND rubric_version = 'paper_v1'`, c, judge)
			if n != 36 {
				t.Errorf("criterion %s judge %s: %d candidates judged, want 36", c, judge, n)
			}
		}
	}
	if n := count(t, store, `SELECT COUNT(*) FROM judgments WHERE candidate_id IS NOT NULL`); n != 36*5*2 {
		t.Fatalf("%d candidate judgments, want %d", n, 36*5*2)
	}
	if n := count(t, store, `SELECT COUNT(*) FROM judgments WHERE judge = 'rubric/judge' AND (raw = '' OR rationale = '')`); n != 0 {
		t.Errorf("%d model judgments without raw output or rationale", n)
	}

	// Recompute each candidate's score (mean over criteria of the mean over
	// judge rows) and the pairs the 0.5 margin keeps, and compare.
	rows, err := store.Reader().Query(`SELECT c.unit_fp, c.id, AVG(v) FROM (
			SELECT candidate_id AS cid, criterion, AVG(score) AS v FROM judgments WHERE candidate_id IS NOT NULL
			GROUP BY candidate_id, criterion) JOIN candidates c ON c.id = cid GROUP BY c.id`)
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string]map[int64]float64{}
	scores := map[int64]float64{}
	for rows.Next() {
		var fp string
		var id int64
		var v float64
		if err := rows.Scan(&fp, &id, &v); err != nil {
			t.Fatal(err)
		}
		if byQuery[fp] == nil {
			byQuery[fp] = map[int64]float64{}
		}
		byQuery[fp][id] = v
		scores[id] = v
	}
	rows.Close()
	want := 0
	for _, q := range byQuery {
		var ids []int64
		for id := range q {
			ids = append(ids, id)
		}
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				if math.Abs(q[ids[i]]-q[ids[j]]) >= 0.5 {
					want++
				}
			}
		}
	}
	pairs, err := store.Reader().Query(`SELECT p.chosen_id, p.rejected_id, p.chosen_score, p.rejected_score, p.margin,
		c1.context_id = c2.context_id AND c1.persona = c2.persona AND p.persona = c1.persona FROM pairs p
		JOIN candidates c1 ON c1.id = p.chosen_id JOIN candidates c2 ON c2.id = p.rejected_id`)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for pairs.Next() {
		var ch, rj int64
		var cs, rs, m float64
		var same bool
		if err := pairs.Scan(&ch, &rj, &cs, &rs, &m, &same); err != nil {
			t.Fatal(err)
		}
		got++
		if !same {
			t.Errorf("pair %d>%d crosses queries", ch, rj)
		}
		if m < 0.5 || math.Abs(m-(cs-rs)) > 1e-9 || math.Abs(cs-scores[ch]) > 1e-9 || math.Abs(rs-scores[rj]) > 1e-9 {
			t.Errorf("pair %d>%d: scores %g/%g margin %g, candidate scores %g/%g", ch, rj, cs, rs, m, scores[ch], scores[rj])
		}
	}
	pairs.Close()
	if want == 0 {
		t.Fatal("the fake judge gave no candidate pair a gap of 0.5; the test cannot check the filter")
	}
	if got != want {
		t.Fatalf("%d pairs, want %d (all gaps >= 0.5)", got, want)
	}
	if n := count(t, store, `SELECT MAX(c) FROM (SELECT COUNT(*) AS c FROM pairs GROUP BY unit_fp)`); n > 6 {
		t.Fatalf("a query has %d pairs, more than K(K-1)/2 = 6", n)
	}
}

func TestEpisodesJudgedMetricsAndReport(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum := execute(t, spec(t, srv.URL(), ""), store)

	// 3 episodes, 3 agent turns each: 9 turns x 5 criteria x 2 rows.
	if n := count(t, store, `SELECT COUNT(*) FROM judgments j JOIN turns t ON t.id = j.turn_id
		WHERE j.agent = t.agent_name AND t.turn_type = ''`); n != 9*5*2 {
		t.Fatalf("%d turn judgments, want 90", n)
	}
	if n := count(t, store, `SELECT COUNT(*) FROM judgments j JOIN turns t ON t.id = j.turn_id WHERE t.turn_type = 'user'`); n != 0 {
		t.Fatalf("%d judgments of user turns", n)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT criterion) FROM judgments WHERE episode_id IS NOT NULL AND agent = ''`); n != 4 {
		t.Fatalf("%d collective criteria, want 4", n)
	}
	if n := count(t, store, `SELECT COUNT(*) FROM judgments WHERE episode_id IS NOT NULL`); n != 3*4*2 {
		t.Fatalf("%d episode judgments, want 24", n)
	}
	// Metrics: per episode and aggregate; the aggregate is the mean.
	for _, name := range []string{"self_bleu", "distinct_1", "distinct_2"} {
		if n := count(t, store, `SELECT COUNT(*) FROM metrics WHERE name = ? AND episode_id IS NOT NULL AND value BETWEEN 0 AND 1`, name); n != 3 {
			t.Errorf("%s: %d per-episode values in [0,1], want 3", name, n)
		}
		var agg, mean float64
		if err := store.Reader().QueryRow(`SELECT (SELECT value FROM metrics WHERE name = ?1 AND episode_id IS NULL),
			(SELECT AVG(value) FROM metrics WHERE name = ?1 AND episode_id IS NOT NULL)`, name).Scan(&agg, &mean); err != nil {
			t.Fatalf("%s aggregate: %v", name, err)
		}
		if math.Abs(agg-mean) > 1e-12 {
			t.Errorf("%s aggregate %g, mean of episodes %g", name, agg, mean)
		}
	}

	rep, err := report.Build(context.Background(), store, []string{sum.RunID}, report.Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	levels := map[string]report.Table{}
	for _, tb := range rep.Tables {
		levels[tb.Level] = tb
	}
	for lv, ncrit := range map[string]int{results.LevelAgent: 5, results.LevelCollective: 4} {
		tb, ok := levels[lv]
		if !ok {
			t.Fatalf("report has no %s table (tables: %v)", lv, rep.Tables)
		}
		if len(tb.Criteria) != ncrit+1 || tb.Criteria[ncrit] != report.Overall {
			t.Errorf("%s table columns %v, want %d criteria then Overall", lv, tb.Criteria, ncrit)
		}
		if len(tb.Rows) == 0 || tb.Rows[0].System != "mascot" {
			t.Fatalf("%s table rows %+v", lv, tb.Rows)
		}
		n := 0
		for _, r := range tb.Rows {
			n += r.N
		}
		if n != 3 {
			t.Errorf("%s table covers %d episodes, want 3", lv, n)
		}
	}
	if _, ok := levels[results.LevelMetric]; !ok {
		t.Errorf("report has no metrics table")
	}
}

func TestGroupPairsFromCollectiveJudgments(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := spec(t, srv.URL(), `stages: {
	group: {kind: "episodes", dataset: "es", roster: "support", director: "speaker", user: "speaker", samples_per_context: 4}
	judge_group: {kind: "judge", items: "group", level: "collective", judges: ["rubric"]}
	group_pairs: {kind: "pairs", judged: "judge_group", margin: 0.25, max_per_query: 2}
}
`)
	execute(t, l, store)
	// Every group pair links two "block" candidates standing for two
	// episodes of the same context, with the episodes' collective means.
	rows, err := store.Reader().Query(`SELECT p.context_id, p.margin, p.chosen_score, p.rejected_score,
		json_extract(c1.meta_json, '$.episode_id'), json_extract(c2.meta_json, '$.episode_id')
		FROM pairs p JOIN candidates c1 ON c1.id = p.chosen_id JOIN candidates c2 ON c2.id = p.rejected_id
		WHERE c1.kind = 'block' AND c2.kind = 'block'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	perCtx := map[string]int{}
	n := 0
	for rows.Next() {
		var cx string
		var m, cs, rs float64
		var e1, e2 int64
		if err := rows.Scan(&cx, &m, &cs, &rs, &e1, &e2); err != nil {
			t.Fatal(err)
		}
		n++
		perCtx[cx]++
		for _, e := range []struct {
			id    int64
			score float64
		}{{e1, cs}, {e2, rs}} {
			var conv string
			var mean float64
			if err := store.Reader().QueryRow(`SELECT e.conv_id, (SELECT AVG(v) FROM (SELECT AVG(score) AS v FROM judgments
				WHERE episode_id = e.id AND agent = '' GROUP BY criterion)) FROM episodes e WHERE e.id = ?`, e.id).Scan(&conv, &mean); err != nil {
				t.Fatal(err)
			}
			if conv != cx || math.Abs(mean-e.score) > 1e-9 {
				t.Errorf("episode %d: context %s score %g, pair says %s %g", e.id, conv, mean, cx, e.score)
			}
		}
		if m < 0.25 || math.Abs(m-(cs-rs)) > 1e-9 {
			t.Errorf("pair margin %g (%g - %g)", m, cs, rs)
		}
	}
	if n == 0 {
		t.Fatal("no group pairs")
	}
	for cx, k := range perCtx {
		if k > 2 {
			t.Errorf("context %s has %d pairs, max_per_query is 2", cx, k)
		}
	}
}

func stageSummary(t *testing.T, sum *runner.Summary, key string) runner.StageSummary {
	t.Helper()
	for _, s := range sum.Stages {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("no stage %s in the summary", key)
	return runner.StageSummary{}
}

// A changed judge config re-judges the stored candidates without
// regenerating them; judge outputs the rubric plugin cannot use are counted
// as annotation failures and leave no rows.
func TestRejudgeStoredCandidatesCountsAnnotationFailures(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	first := execute(t, spec(t, srv.URL(), ""), store)
	if s := stageSummary(t, first, "judge_cand"); s.Ran != 9 || s.Counters["num_annotation_failures"] != 0 {
		t.Fatalf("first run judge_cand: %+v", s)
	}
	before := count(t, store, `SELECT COUNT(*) FROM judgments`)

	srv.SetFaults(fakevllm.Faults{Empty: 1})
	l := spec(t, srv.URL(), `judges: rubric: options: {concurrency: 2}`)
	second, err := runner.Execute(context.Background(), runner.Options{Loaded: l, Store: store, RunsDir: t.TempDir(),
		Registry: runner.Default.WithStage("episodes", "test", fakeEpisodes), Services: runner.Services{Plugins: starter{mascotBin(t)}}})
	if !errors.Is(err, runner.ErrStageFailed) {
		t.Fatalf("a judge that voids every item should fail its units, got %v", err)
	}
	if s := stageSummary(t, second, "cand"); s.Ran != 0 || s.Cached != 9 {
		t.Fatalf("candidates were regenerated: %+v", s)
	}
	s := stageSummary(t, second, "judge_cand")
	if s.Ran != 0 || s.Failed != 9 {
		t.Fatalf("changed judge config: ran %d failed %d units, want 0 and 9 (all voided, so retried later)", s.Ran, s.Failed)
	}
	if got := s.Counters["num_annotation_failures"]; got != 36 {
		t.Fatalf("num_annotation_failures = %d, want 36 (every candidate)", got)
	}
	if after := count(t, store, `SELECT COUNT(*) FROM judgments`); after != before {
		t.Fatalf("%d judgments after the failing re-judge, %d before: failed items left rows", after, before)
	}
	// Once the judge answers again, the rerun judges exactly the failed units.
	srv.SetFaults(fakevllm.Faults{})
	third := execute(t, l, store)
	if s := stageSummary(t, third, "judge_cand"); s.Ran != 9 || s.Counters["num_annotation_failures"] != 0 {
		t.Fatalf("rerun after the judge recovered: %+v", s)
	}
	if after := count(t, store, `SELECT COUNT(*) FROM judgments`); after != 2*before {
		t.Fatalf("%d judgments after the rerun, want %d (the re-judged stage's rows beside the first)", after, 2*before)
	}
}

func TestCompareLevelWritesComparisonsAndWinRates(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	store, err := results.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum := execute(t, spec(t, srv.URL(), `stages: {
	base: {kind: "episodes", mode: "eval", dataset: "test", roster: "support", director: "speaker", user: "speaker", system: "zero-shot"}
	h2h: {kind: "judge", items: "eval", level: "compare", compare: ["base"], judges: ["rubric"]}
}
`), store)
	// 3 contexts, one pairwise item each: the model's preference and the pooled one.
	if n := count(t, store, `SELECT COUNT(*) FROM comparisons WHERE systems_json = '["eval","base"]'
		AND choice IN ('eval', 'base', 'tie') AND json_array_length(episodes_json) = 2`); n != 6 {
		t.Fatalf("%d comparisons, want 6", n)
	}
	if n := count(t, store, `SELECT COUNT(DISTINCT judge) FROM comparisons`); n != 2 {
		t.Fatalf("%d comparison judges, want 2 (model and pooled)", n)
	}
	rep, err := report.Build(context.Background(), store, []string{sum.RunID}, report.Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, w := range rep.WinRates {
		if w.Kind == "pairwise" && (w.System == "eval" || w.System == "base") {
			shown += w.Shown
		}
	}
	// The model's verdicts and its one-model pool are the same verdicts:
	// one source, 3 comparisons x 2 systems.
	if shown != 6 || len(rep.WinRates) != 2 || rep.WinRates[0].Source != "rubric" {
		t.Fatalf("win rates show systems %d times, want 6 (3 comparisons x 2 systems, one source): %+v", shown, rep.WinRates)
	}
}
