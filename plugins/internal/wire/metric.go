package wire

import (
	"context"
	"encoding/json"

	"mascot.dev/mascot/plugins/spec"

	pluginv1 "mascot.dev/mascot/plugins/proto/mascot/plugin/v1"
)

// MetricImpl is the Go shape of the Metric service, on both sides.
type MetricImpl interface {
	Describe(ctx context.Context) (spec.MetricDescription, error)
	Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error)
	Compute(ctx context.Context, episodes []spec.Episode) (spec.ComputeResult, error)
}

type metricServer struct {
	pluginv1.UnimplementedMetricServer
	impl MetricImpl
}

func (s *metricServer) Describe(ctx context.Context, _ *pluginv1.DescribeRequest) (*pluginv1.DescribeMetricResponse, error) {
	d, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	p := &pluginv1.DescribeMetricResponse{Name: d.Name, Version: d.Version, Diagnostics: diagsToProto(d.Diagnostics)}
	for _, m := range d.Metrics {
		p.Metrics = append(p.Metrics, &pluginv1.MetricInfo{Id: m.ID, Description: m.Description, HigherIsBetter: m.HigherIsBetter})
	}
	return p, nil
}

func (s *metricServer) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	ds, err := s.impl.Configure(ctx, json.RawMessage(req.GetConfigJson()))
	if err != nil {
		return nil, err
	}
	return &pluginv1.ConfigureResponse{Diagnostics: diagsToProto(ds)}, nil
}

func (s *metricServer) Compute(ctx context.Context, req *pluginv1.ComputeRequest) (*pluginv1.ComputeResponse, error) {
	eps := make([]spec.Episode, 0, len(req.GetEpisodes()))
	for _, e := range req.GetEpisodes() {
		eps = append(eps, episodeFromProto(e))
	}
	r, err := s.impl.Compute(ctx, eps)
	if err != nil {
		return nil, err
	}
	p := &pluginv1.ComputeResponse{Aggregate: r.Aggregate, Diagnostics: diagsToProto(r.Diagnostics)}
	if len(r.AggregateN) > 0 {
		p.AggregateN = make(map[string]int32, len(r.AggregateN))
		for k, n := range r.AggregateN {
			p.AggregateN[k] = int32(n)
		}
	}
	for _, v := range r.Values {
		p.Values = append(p.Values, &pluginv1.EpisodeValues{EpisodeId: v.EpisodeID, Values: v.Values, Diagnostics: diagsToProto(v.Diagnostics)})
	}
	return p, nil
}

// MetricClient is the host-side MetricImpl over a gRPC connection.
type MetricClient struct{ c pluginv1.MetricClient }

// Describe calls the plugin's Describe.
func (c *MetricClient) Describe(ctx context.Context) (spec.MetricDescription, error) {
	p, err := c.c.Describe(ctx, &pluginv1.DescribeRequest{})
	if err != nil {
		return spec.MetricDescription{}, err
	}
	d := spec.MetricDescription{Name: p.GetName(), Version: p.GetVersion(), Diagnostics: diagsFromProto(p.GetDiagnostics())}
	for _, m := range p.GetMetrics() {
		d.Metrics = append(d.Metrics, spec.MetricInfo{ID: m.GetId(), Description: m.GetDescription(), HigherIsBetter: m.GetHigherIsBetter()})
	}
	return d, nil
}

// Configure calls the plugin's Configure.
func (c *MetricClient) Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error) {
	r, err := c.c.Configure(ctx, &pluginv1.ConfigureRequest{ConfigJson: config})
	if err != nil {
		return nil, err
	}
	return diagsFromProto(r.GetDiagnostics()), nil
}

// Compute calls the plugin's Compute with one batch.
func (c *MetricClient) Compute(ctx context.Context, episodes []spec.Episode) (spec.ComputeResult, error) {
	req := &pluginv1.ComputeRequest{Episodes: make([]*pluginv1.Episode, 0, len(episodes))}
	for _, e := range episodes {
		req.Episodes = append(req.Episodes, EpisodeToProto(e))
	}
	p, err := c.c.Compute(ctx, req)
	if err != nil {
		return spec.ComputeResult{}, err
	}
	r := spec.ComputeResult{Aggregate: p.GetAggregate(), Diagnostics: diagsFromProto(p.GetDiagnostics())}
	if len(p.GetAggregateN()) > 0 {
		r.AggregateN = make(map[string]int, len(p.GetAggregateN()))
		for k, n := range p.GetAggregateN() {
			r.AggregateN[k] = int(n)
		}
	}
	for _, v := range p.GetValues() {
		r.Values = append(r.Values, spec.EpisodeValues{EpisodeID: v.GetEpisodeId(), Values: v.GetValues(), Diagnostics: diagsFromProto(v.GetDiagnostics())})
	}
	return r, nil
}
