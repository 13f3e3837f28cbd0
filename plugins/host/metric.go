package host

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"mascot.dev/mascot/plugins/internal/wire"
	"mascot.dev/mascot/plugins/spec"
)

// PluginMetric is a Metric backed by a plugin.
type PluginMetric struct {
	name  string
	inv   invoker
	split int

	mu   sync.Mutex
	desc *spec.MetricDescription
}

var _ Metric = (*PluginMetric)(nil)

// StartMetric starts the metric plugin process described by cfg and checks
// that it is a metric (Describe).
func StartMetric(ctx context.Context, cfg Config) (*PluginMetric, error) {
	p, err := startProcess(ctx, cfg, wire.MetricName)
	if err != nil {
		return nil, err
	}
	m := &PluginMetric{name: p.cfg.Name, inv: p, split: p.cfg.SplitBytes}
	if _, err := m.Describe(ctx); err != nil {
		_ = p.close()
		return nil, err
	}
	return m, nil
}

// WrapMetric is WrapJudge for metrics.
func WrapMetric(name string, impl Metric) *PluginMetric {
	return &PluginMetric{name: name, inv: &direct{raw: impl, kind: wire.MetricName, name: name}, split: wire.DefaultSplitBytes}
}

// Name returns the plugin's name.
func (m *PluginMetric) Name() string { return m.name }

// Restarts returns how many times the plugin process was restarted.
func (m *PluginMetric) Restarts() int { return m.inv.restarts() }

// Close stops the plugin process.
func (m *PluginMetric) Close() error { return m.inv.close() }

// Describe returns the metric ids (cached after the first call).
func (m *PluginMetric) Describe(ctx context.Context) (spec.MetricDescription, error) {
	m.mu.Lock()
	if m.desc != nil {
		defer m.mu.Unlock()
		return *m.desc, nil
	}
	m.mu.Unlock()
	var d spec.MetricDescription
	err := m.inv.call(ctx, "Describe", func(ctx context.Context, raw any) error {
		var err error
		d, err = raw.(Metric).Describe(ctx)
		return err
	})
	if err != nil {
		return spec.MetricDescription{}, err
	}
	m.mu.Lock()
	m.desc = &d
	m.mu.Unlock()
	return d, nil
}

// Configure sends the options; they are replayed after a restart.
func (m *PluginMetric) Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error) {
	var ds []spec.Diagnostic
	err := m.inv.call(ctx, "Configure", func(ctx context.Context, raw any) error {
		var err error
		ds, err = raw.(Metric).Configure(ctx, config)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !spec.HasErrors(ds) {
		m.inv.setConfig(config)
	}
	return ds, nil
}

// Compute computes the metrics of episodes in batches under the message
// limit; aggregates of several batches are combined as means weighted by
// the number of episodes behind each.
func (m *PluginMetric) Compute(ctx context.Context, episodes []spec.Episode) (spec.ComputeResult, error) {
	if err := uniqueIDs(episodes, func(e spec.Episode) string { return e.ID }); err != nil {
		return spec.ComputeResult{}, fmt.Errorf("computing metric plugin %s: %w", m.name, err)
	}
	out := spec.ComputeResult{Values: make([]spec.EpisodeValues, len(episodes)), Aggregate: map[string]float64{}, AggregateN: map[string]int{}}
	batches, tooBig := splitBatches(episodes, m.split, func(e spec.Episode) int { return protoSize(wire.EpisodeToProto(e)) })
	for _, i := range tooBig {
		out.Values[i] = spec.EpisodeValues{EpisodeID: episodes[i].ID, Diagnostics: []spec.Diagnostic{spec.Errorf(episodes[i].ID,
			"episode is larger than one plugin message (%d bytes)", m.split)}}
	}
	sums := map[string]float64{}
	for _, b := range batches {
		batch := make([]spec.Episode, len(b))
		for k, i := range b {
			batch[k] = episodes[i]
		}
		var res spec.ComputeResult
		err := m.inv.call(ctx, "Compute", func(ctx context.Context, raw any) error {
			var err error
			res, err = raw.(Metric).Compute(ctx, batch)
			return err
		})
		if err != nil {
			return spec.ComputeResult{}, err
		}
		byID := make(map[string]spec.EpisodeValues, len(res.Values))
		for _, v := range res.Values {
			byID[v.EpisodeID] = v
		}
		for k, i := range b {
			v, ok := byID[batch[k].ID]
			if !ok {
				v = spec.EpisodeValues{EpisodeID: batch[k].ID, Diagnostics: []spec.Diagnostic{spec.Errorf(batch[k].ID, "metric returned no values for this episode")}}
			}
			for name, x := range v.Values {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					v.Diagnostics = append(v.Diagnostics, spec.Errorf(v.EpisodeID, "metric %s is %g", name, x))
				}
			}
			out.Values[i] = v
		}
		for name, x := range res.Aggregate {
			n := res.AggregateN[name]
			if n == 0 {
				n = len(batch)
			}
			sums[name] += x * float64(n)
			out.AggregateN[name] += n
		}
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
	}
	for name, s := range sums {
		if n := out.AggregateN[name]; n > 0 {
			out.Aggregate[name] = s / float64(n)
		}
	}
	for i := range out.Values {
		if spec.HasErrors(out.Values[i].Diagnostics) {
			out.Values[i].Failed = true
			out.Values[i].Values = nil
			out.Failures++
		}
	}
	return out, nil
}
