// Package fakejudge is a small, deterministic judge and metric used by the
// plugin tests at every level (in memory, re-executed test binary) and by
// the round-trip benchmark. Its behaviour is chosen through its config so
// that a restarted process behaves like the one it replaces.
package fakejudge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Config selects the fake's behaviour.
type Config struct {
	// Mode: "" (score normally), "malformed" (items whose id contains "bad"
	// get an off-scale score or an error diagnostic next to a valid score),
	// "block-once" (the first process to see Score writes its pid to
	// PIDFile and blocks until killed; later processes score normally),
	// "block-process-once" (the first process configured writes its pid to
	// PIDFile, and every Score call it gets appends a line to
	// PIDFile+".calls" and blocks until killed; later processes score
	// normally).
	Mode string `json:"mode"`
	// PIDFile receives the process id (block-once, and on Configure when
	// ReportPID is set).
	PIDFile   string `json:"pid_file"`
	ReportPID bool   `json:"report_pid"`
}

// Validate implements sdk.Validator.
func (c Config) Validate() []spec.Diagnostic {
	switch c.Mode {
	case "", "malformed", "block-once", "block-process-once":
	default:
		return []spec.Diagnostic{spec.AttrError([]string{"mode"}, "unknown mode", c.Mode)}
	}
	if (c.Mode == "block-once" || c.Mode == "block-process-once" || c.ReportPID) && c.PIDFile == "" {
		return []spec.Diagnostic{spec.AttrError([]string{"pid_file"}, "pid_file is required", "")}
	}
	return nil
}

// Judge scores "clarity" as len(words) clamped to 1..5 and "brevity" as 6
// minus that.
type Judge struct {
	cfg   Config
	block bool // block-process-once, in the first process
}

var _ sdk.Judge = (*Judge)(nil)

// Describe implements sdk.Judge.
func (j *Judge) Describe(context.Context) (sdk.JudgeInfo, error) {
	return sdk.JudgeInfo{Name: "fake", Version: "1", RubricVersion: "fake_v1",
		Criteria: []sdk.Criterion{{ID: "clarity", Name: "Clarity", Level: "agent"}, {ID: "brevity", Name: "Brevity", Level: "agent"}},
		Scale:    sdk.Scale{Min: 1, Max: 5}, ItemKinds: []spec.ItemKind{spec.KindCandidate, spec.KindTurn}}, nil
}

// Configure implements sdk.Judge.
func (j *Judge) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	cfg, ds := sdk.DecodeConfig[Config](raw)
	if spec.HasErrors(ds) {
		return ds, nil
	}
	j.cfg = cfg
	if cfg.Mode == "block-process-once" {
		if _, err := os.Stat(cfg.PIDFile); os.IsNotExist(err) {
			j.block = true
			if err := writePID(cfg.PIDFile); err != nil {
				return nil, err
			}
		}
	}
	if cfg.ReportPID {
		if err := writePID(cfg.PIDFile); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func writePID(path string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("writing pid file: %w", err)
	}
	return os.Rename(tmp, path)
}

// WordScore is the fake's clarity score for a response.
func WordScore(s string) float64 {
	n := len(strings.Fields(s))
	return float64(min(max(n, 1), 5))
}

// Score implements sdk.Judge.
func (j *Judge) Score(ctx context.Context, items []sdk.Item) (sdk.ScoreResult, error) {
	if j.block {
		f, err := os.OpenFile(j.cfg.PIDFile+".calls", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return sdk.ScoreResult{}, err
		}
		_, err = f.WriteString("call\n")
		f.Close()
		if err != nil {
			return sdk.ScoreResult{}, err
		}
		<-ctx.Done() // the test kills this process with every call in flight
		return sdk.ScoreResult{}, ctx.Err()
	}
	if j.cfg.Mode == "block-once" {
		if _, err := os.Stat(j.cfg.PIDFile); os.IsNotExist(err) {
			if err := writePID(j.cfg.PIDFile); err != nil {
				return sdk.ScoreResult{}, err
			}
			<-ctx.Done() // the test kills this process here, mid-batch
			return sdk.ScoreResult{}, ctx.Err()
		}
	}
	var res sdk.ScoreResult
	for _, it := range items {
		c := WordScore(it.Response)
		r := sdk.ItemResult{ItemID: it.ID, Scores: []sdk.Score{
			{CriterionID: "clarity", Raw: c, Rationale: "word count"},
			{CriterionID: "brevity", Raw: 6 - c, Rationale: "inverse word count"},
		}, RawOutputs: []spec.RawOutput{{Judge: "fake", Text: it.Response}}}
		if j.cfg.Mode == "malformed" && strings.Contains(it.ID, "bad-range") {
			r.Scores[0].Raw = 9 // off the 1..5 scale
		}
		if j.cfg.Mode == "malformed" && strings.Contains(it.ID, "bad-parse") {
			r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "could not parse the judge output"))
		}
		res.Results = append(res.Results, r)
	}
	return res, nil
}

// Metric counts turns and words per episode.
type Metric struct{}

var _ sdk.Metric = Metric{}

// Describe implements sdk.Metric.
func (Metric) Describe(context.Context) (sdk.MetricDescription, error) {
	return sdk.MetricDescription{Name: "fake-metric", Version: "1",
		Metrics: []sdk.MetricInfo{{ID: "turns"}, {ID: "words"}}}, nil
}

// Configure implements sdk.Metric.
func (Metric) Configure(context.Context, json.RawMessage) ([]sdk.Diagnostic, error) { return nil, nil }

// Compute implements sdk.Metric.
func (Metric) Compute(_ context.Context, eps []sdk.Episode) (sdk.ComputeResult, error) {
	res := sdk.ComputeResult{Aggregate: map[string]float64{}}
	for _, e := range eps {
		words := 0
		for _, t := range e.Turns {
			words += len(strings.Fields(t.Text))
		}
		v := map[string]float64{"turns": float64(len(e.Turns)), "words": float64(words)}
		res.Values = append(res.Values, sdk.EpisodeValues{EpisodeID: e.ID, Values: v})
		res.Aggregate["turns"] += v["turns"] / float64(len(eps))
		res.Aggregate["words"] += v["words"] / float64(len(eps))
	}
	return res, nil
}
