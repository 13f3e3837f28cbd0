package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// TestZeroOneMetricKeepsItsDigitsInTextAndMarkdown: a 0–1 metric is
// printed by the terminal and markdown renderers with the decimals of the
// one rule (format.go), not rounded to one decimal: distinct_1 over five
// episodes (0.61 … 0.66, mean 0.624, std 0.027) reads 0.624 ± 0.027.
func TestZeroOneMetricKeepsItsDigitsInTextAndMarkdown(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.CreateRun(ctx, results.Run{ID: "m", Name: "metrics"}); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{0.61, 0.64, 0.59, 0.66, 0.62} {
		var id int64
		gen := results.Unit{Fingerprint: fmt.Sprintf("ep-%d", i), Kind: "episodes", StageKey: "eval", RunID: "m"}
		if err := s.CommitUnit(ctx, gen, func(tx *results.Tx) error {
			var err error
			id, err = tx.InsertEpisode(results.Episode{System: "mascot", Dataset: "esconv",
				Record: jsonl.Record{ConvID: fmt.Sprintf("c%d", i), Turns: []results.Turn{{TurnIdx: 0, AgentName: "A", Response: "hi"}}}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		mu := results.Unit{Fingerprint: fmt.Sprintf("m-%d", i), Kind: "metrics", StageKey: "metrics", RunID: "m"}
		if err := s.CommitUnit(ctx, mu, func(tx *results.Tx) error {
			_, err := tx.InsertMetric(results.Metric{EpisodeID: id, Name: "distinct_1", Value: v})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Build(ctx, s, []string{"m"}, Options{Resamples: 200, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatText, FormatMarkdown} {
		var b bytes.Buffer
		if err := Render(&b, rep, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "0.624 ± 0.027 [") {
			t.Errorf("%s does not show distinct_1 as 0.624 ± 0.027 [...]:\n%s", format, b.String())
		}
		if strings.Contains(b.String(), "0.6 ± 0.0") {
			t.Errorf("%s rounds a 0–1 metric to one decimal:\n%s", format, b.String())
		}
	}
}
