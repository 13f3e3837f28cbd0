package textmetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Options are the config of both metrics.
type Options struct {
	// N is the BLEU order (self-bleu, default 3).
	N int `json:"n"`
	// Ns are the distinct-n orders (distinct-n, default [1, 2]).
	Ns          []int `json:"ns"`
	Lowercase   bool  `json:"lowercase"`
	IncludeUser bool  `json:"include_user"`
}

// Validate implements sdk.Validator.
func (o *Options) Validate() []spec.Diagnostic {
	var ds []spec.Diagnostic
	if o.N == 0 {
		o.N = 3
	}
	if len(o.Ns) == 0 {
		o.Ns = []int{1, 2}
	}
	if o.N < 1 || o.N > 8 {
		ds = append(ds, spec.AttrError([]string{"n"}, "n must be between 1 and 8", strconv.Itoa(o.N)))
	}
	for i, n := range o.Ns {
		if n < 1 || n > 8 {
			ds = append(ds, spec.AttrError([]string{"ns", strconv.Itoa(i)}, "n must be between 1 and 8", strconv.Itoa(n)))
		}
	}
	return ds
}

// Metric serves self-bleu (Kind "self-bleu") or distinct-n ("distinct-n").
type Metric struct {
	Kind string
	opts Options
}

// NewSelfBLEU returns the self-bleu metric with default options.
func NewSelfBLEU() *Metric { return &Metric{Kind: "self-bleu", opts: Options{N: 3}} }

// NewDistinct returns the distinct-n metric with default options.
func NewDistinct() *Metric { return &Metric{Kind: "distinct-n", opts: Options{Ns: []int{1, 2}}} }

// Describe implements sdk.Metric.
func (m *Metric) Describe(context.Context) (sdk.MetricDescription, error) {
	d := sdk.MetricDescription{Name: m.Kind, Version: "1"}
	if m.Kind == "self-bleu" {
		d.Metrics = []sdk.MetricInfo{{ID: "self_bleu", Description: fmt.Sprintf("Self-BLEU-%d (Texygen, smoothing 1); higher = more repetitive", m.opts.N)}}
		return d, nil
	}
	for _, n := range m.opts.Ns {
		d.Metrics = append(d.Metrics, sdk.MetricInfo{ID: fmt.Sprintf("distinct_%d", n),
			Description: fmt.Sprintf("distinct %d-grams / all %d-grams", n, n), HigherIsBetter: true})
	}
	return d, nil
}

// Configure implements sdk.Metric.
func (m *Metric) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	o, ds := sdk.DecodeConfig[Options](raw) // Validate also fills defaults
	if spec.HasErrors(ds) {
		return ds, nil
	}
	m.opts = o
	return ds, nil
}

// Compute implements sdk.Metric.
func (m *Metric) Compute(_ context.Context, eps []sdk.Episode) (sdk.ComputeResult, error) {
	res := sdk.ComputeResult{Aggregate: map[string]float64{}, AggregateN: map[string]int{}}
	for _, e := range eps {
		var utts [][]string
		for _, t := range e.Turns {
			if t.Role == "user" && !m.opts.IncludeUser {
				continue
			}
			utts = append(utts, Tokenize(t.Text, m.opts.Lowercase))
		}
		ev := sdk.EpisodeValues{EpisodeID: e.ID, Values: map[string]float64{}}
		if m.Kind == "self-bleu" {
			if v, ok := SelfBLEU(utts, m.opts.N); ok {
				ev.Values["self_bleu"] = v
			} else {
				ev.Diagnostics = append(ev.Diagnostics, spec.Warnf(e.ID, "self-BLEU needs at least two utterances; episode has %d", len(utts)))
			}
		} else {
			for _, n := range m.opts.Ns {
				if v, ok := Distinct(utts, n); ok {
					ev.Values[fmt.Sprintf("distinct_%d", n)] = v
				}
			}
		}
		for k, v := range ev.Values {
			res.Aggregate[k] += v
			res.AggregateN[k]++
		}
		res.Values = append(res.Values, ev)
	}
	for k, n := range res.AggregateN {
		res.Aggregate[k] /= float64(n)
	}
	return res, nil
}
