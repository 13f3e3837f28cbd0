package metrics

import (
	"context"
	"fmt"
	"sort"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/judge"
	"mascot.dev/mascot/runner/stages/judge/plugstart"
	"mascot.dev/mascot/schema"
)

// Config is #MetricsStage.
type Config struct {
	Episodes string   `json:"episodes"`
	Metrics  []string `json:"metrics"`
}

type stage struct {
	env *runner.Env
	key string
	cfg Config
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	if k := env.Exp.Stages[s.cfg.Episodes].Kind; k != "episodes" {
		return nil, fmt.Errorf("metrics stage %s: episodes must name an episodes stage, %q is %q", st.Key, s.cfg.Episodes, k)
	}
	for _, m := range s.cfg.Metrics {
		if _, ok := env.Exp.Metrics[m]; !ok {
			return nil, fmt.Errorf("metrics stage %s: unknown metric %q", st.Key, m)
		}
	}
	return s, nil
}

func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	out, err := s.env.Output(s.cfg.Episodes)
	if err != nil {
		return nil, err
	}
	fps := append([]string(nil), out.Units...)
	sort.Strings(fps)
	units := make([]runner.Unit, len(s.cfg.Metrics))
	for i, m := range s.cfg.Metrics {
		units[i] = runner.Unit{Key: m, Inputs: map[string]any{"metric": m, "episodes_units": fps}, Payload: fps}
	}
	return units, nil
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	fps := u.Payload.([]string)
	var eps []*results.Episode
	for _, fp := range fps {
		got, err := s.env.Store.EpisodesForUnit(ctx, fp)
		if err != nil {
			return nil, err
		}
		eps = append(eps, got...)
	}
	m, err := s.start(ctx, u.Key)
	if err != nil {
		return nil, err
	}
	in := make([]spec.Episode, len(eps))
	for i, e := range eps {
		in[i] = spec.Episode{ID: fmt.Sprintf("e%d", e.ID), Turns: judge.EpisodeTurns(e.Turns),
			Metadata: map[string]string{"conv_id": e.ConvID, "system": e.System}}
	}
	before := m.Restarts()
	res, err := m.Compute(ctx, in)
	plugstart.CountCall(ctx, s.env, s.key, u.Key, before, m.Restarts(), err)
	if err != nil {
		return nil, fmt.Errorf("computing metric %s: %w", u.Key, err)
	}
	s.env.Count(s.key, "num_metric_failures", int64(res.Failures))
	rows := Rows(eps, res)
	return func(tx *results.Tx) error {
		_, err := tx.InsertMetrics(rows)
		return err
	}, nil
}

// Rows turns a metric result into per-episode rows and one aggregate row
// per value and system (mean over the system's scored episodes).
func Rows(eps []*results.Episode, res spec.ComputeResult) []results.Metric {
	var out []results.Metric
	type key struct{ system, name string }
	sums, ns := map[key]float64{}, map[key]int{}
	for i, v := range res.Values {
		if v.Failed || i >= len(eps) {
			continue
		}
		names := make([]string, 0, len(v.Values))
		for n := range v.Values {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, results.Metric{EpisodeID: eps[i].ID, System: eps[i].System, Name: n, Value: v.Values[n]})
			k := key{eps[i].System, n}
			sums[k] += v.Values[n]
			ns[k]++
		}
	}
	keys := make([]key, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].system != keys[b].system {
			return keys[a].system < keys[b].system
		}
		return keys[a].name < keys[b].name
	})
	for _, k := range keys {
		out = append(out, results.Metric{System: k.system, Name: k.name, Value: sums[k] / float64(ns[k]),
			Meta: []byte(fmt.Sprintf(`{"aggregate":"mean","n":%d}`, ns[k]))})
	}
	return out
}

func (s *stage) start(ctx context.Context, name string) (*host.PluginMetric, error) {
	mc := s.env.Exp.Metrics[name]
	opts, err := plugstart.Options(mc.Options)
	if err != nil {
		return nil, fmt.Errorf("metric %s: %w", name, err)
	}
	if mc.Endpoint != "" {
		if _, ok := opts["url"]; !ok {
			ep, ok := s.env.Exp.Endpoints[mc.Endpoint]
			if !ok || len(ep.URLs) == 0 {
				return nil, fmt.Errorf("metric %s: endpoint %q is unknown or has no url", name, mc.Endpoint)
			}
			opts["url"], opts["model"] = ep.URLs[0], ep.Model
			if ep.APIKeyEnv != "" {
				opts["api_key_env"] = ep.APIKeyEnv
			}
		}
	}
	conf, err := jsonOf(opts)
	if err != nil {
		return nil, err
	}
	var eps []string
	if mc.Endpoint != "" {
		eps = []string{mc.Endpoint}
	}
	return plugstart.StartMetric(ctx, s.env, s.key, plugstart.Spec{Name: name, Plugin: mc.Plugin,
		Command: mc.Command, SHA256: mc.SHA256, Endpoints: eps}, conf)
}
