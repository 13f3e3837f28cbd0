package nli

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Metric is the nli-contradiction metric (sdk.Metric).
type Metric struct {
	cfg  Config
	http *http.Client
}

var _ sdk.Metric = (*Metric)(nil)

// New returns an unconfigured metric.
func New() *Metric { return &Metric{} }

// Describe implements sdk.Metric.
func (m *Metric) Describe(context.Context) (sdk.MetricDescription, error) {
	return sdk.MetricDescription{Name: "nli-contradiction", Version: "1", Metrics: []sdk.MetricInfo{
		{ID: "contradiction_rate", Description: "share of agent-turn pairs classified CONTRADICTION"},
		{ID: "nli_pairs", Description: "number of pairs classified"},
	}}, nil
}

// Configure implements sdk.Metric.
func (m *Metric) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	cfg, ds := sdk.DecodeConfig[Config](raw)
	if spec.HasErrors(ds) {
		return ds, nil
	}
	m.cfg = cfg
	m.http = &http.Client{Timeout: time.Duration(cfg.TimeoutS * float64(time.Second))}
	return ds, nil
}

// Compute implements sdk.Metric.
func (m *Metric) Compute(ctx context.Context, eps []sdk.Episode) (sdk.ComputeResult, error) {
	res := sdk.ComputeResult{Aggregate: map[string]float64{}, AggregateN: map[string]int{}}
	if m.http == nil {
		res.Diagnostics = []sdk.Diagnostic{spec.Errorf("", "nli-contradiction is not configured (url missing)")}
		return res, nil
	}
	for _, e := range eps {
		ev := sdk.EpisodeValues{EpisodeID: e.ID, Values: map[string]float64{}}
		ps, err := makePairs(e, m.cfg.Pairing, m.cfg.AllowRoundInference)
		if err != nil {
			ev.Diagnostics = append(ev.Diagnostics, spec.Diagnostic{Severity: spec.SeverityError, ItemID: e.ID,
				Summary: err.Error(), Path: []string{"allow_round_inference"}})
			res.Values = append(res.Values, ev)
			continue
		}
		var prem, hyp []string
		for _, p := range ps {
			prem, hyp = append(prem, p.a.Text), append(hyp, p.b.Text)
			if m.cfg.Direction == "bidirectional" {
				prem, hyp = append(prem, p.b.Text), append(hyp, p.a.Text)
			}
		}
		labels, err := m.classifyAll(ctx, prem, hyp)
		if err != nil {
			ev.Diagnostics = append(ev.Diagnostics, spec.Errorf(e.ID, "classifying pairs: %v", err))
			res.Values = append(res.Values, ev)
			continue
		}
		per := 1
		if m.cfg.Direction == "bidirectional" {
			per = 2
		}
		contra := 0
		for i := range ps {
			for k := range per {
				if strings.EqualFold(labels[i*per+k], m.cfg.ContradictionLabel) {
					contra++
					break
				}
			}
		}
		ev.Values["nli_pairs"] = float64(len(ps))
		if len(ps) > 0 {
			ev.Values["contradiction_rate"] = float64(contra) / float64(len(ps))
			res.Aggregate["contradiction_rate"] += ev.Values["contradiction_rate"]
			res.AggregateN["contradiction_rate"]++
		} else {
			ev.Diagnostics = append(ev.Diagnostics, spec.Warnf(e.ID, "no turn pairs for pairing %s", m.cfg.Pairing))
		}
		res.Values = append(res.Values, ev)
	}
	if n := res.AggregateN["contradiction_rate"]; n > 0 {
		res.Aggregate["contradiction_rate"] /= float64(n)
	}
	return res, nil
}

func (m *Metric) classifyAll(ctx context.Context, prem, hyp []string) ([]string, error) {
	var out []string
	for s := 0; s < len(prem); s += m.cfg.BatchSize {
		e := min(s+m.cfg.BatchSize, len(prem))
		l, err := m.classify(ctx, prem[s:e], hyp[s:e])
		if err != nil {
			return nil, err
		}
		out = append(out, l...)
	}
	return out, nil
}
