// Command lengthjudge is a complete third-party judge plugin for mascot, as
// small as a useful one gets: it scores "conciseness" from the response's
// word count against a target length taken from its config.
//
// Build it, then point a judge stage at the binary:
//
//	go build -o lengthjudge ./plugins/examples/lengthjudge
//	judges: length: {plugin: "lengthjudge", command: ["./lengthjudge"], options: {target_words: 40}}
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"mascot.dev/mascot/plugins/sdk"
)

// Config is decoded (strictly) from the stage's options.
type Config struct {
	TargetWords int `json:"target_words"`
}

// Validate fills the default and checks the range; DecodeConfig calls it.
func (c *Config) Validate() []sdk.Diagnostic {
	if c.TargetWords == 0 {
		c.TargetWords = 40
	}
	if c.TargetWords < 1 {
		return []sdk.Diagnostic{{Severity: sdk.SeverityError, Path: []string{"target_words"}, Summary: "target_words must be positive"}}
	}
	return nil
}

type judge struct{ cfg Config }

func (j *judge) Describe(context.Context) (sdk.JudgeInfo, error) {
	return sdk.JudgeInfo{
		Name: "lengthjudge", Version: "1", RubricVersion: "length_v1",
		Criteria: []sdk.Criterion{{ID: "conciseness", Name: "Conciseness", Level: "agent",
			Description: "How close the response is to the target length.",
			Anchors:     []sdk.Anchor{{Score: 1, Text: "four or more times off"}, {Score: 5, Text: "on target"}}}},
		Scale: sdk.Scale{Min: 1, Max: 5},
	}, nil
}

func (j *judge) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	cfg, ds := sdk.DecodeConfig[Config](raw)
	if len(ds) == 0 {
		j.cfg = cfg
	}
	return ds, nil
}

func (j *judge) Score(_ context.Context, items []sdk.Item) (sdk.ScoreResult, error) {
	var res sdk.ScoreResult
	for _, it := range items {
		n := len(strings.Fields(it.Response))
		if n == 0 {
			// A problem with one item is a diagnostic, not an error.
			res.Results = append(res.Results, sdk.ItemResult{ItemID: it.ID,
				Diagnostics: []sdk.Diagnostic{{Severity: sdk.SeverityError, ItemID: it.ID, Summary: "empty response"}}})
			continue
		}
		// ratio 1 -> 5; each doubling or halving costs 2 points, floor 1.
		off := math.Abs(math.Log2(float64(n) / float64(j.cfg.TargetWords)))
		score := math.Max(1, 5-2*off)
		res.Results = append(res.Results, sdk.ItemResult{ItemID: it.ID, Scores: []sdk.Score{{
			CriterionID: "conciseness", Raw: score,
			Rationale: fmt.Sprintf("%d words against a target of %d", n, j.cfg.TargetWords)}}})
	}
	return res, nil
}

func main() {
	if err := sdk.ServeJudge(&judge{cfg: Config{TargetWords: 40}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
