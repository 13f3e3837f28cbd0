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

// PluginJudge is a Judge backed by a plugin (a supervised process, or an
// implementation wrapped with WrapJudge). It splits batches, validates what
// the plugin returns and voids items with error diagnostics.
type PluginJudge struct {
	name  string
	inv   invoker
	split int

	mu   sync.Mutex
	info *spec.JudgeInfo
}

var _ Judge = (*PluginJudge)(nil)

// StartJudge starts the judge plugin process described by cfg, checks
// that it answers (gRPC health check) and that it is a judge (Describe).
func StartJudge(ctx context.Context, cfg Config) (*PluginJudge, error) {
	p, err := startProcess(ctx, cfg, wire.JudgeName)
	if err != nil {
		return nil, err
	}
	j := &PluginJudge{name: p.cfg.Name, inv: p, split: p.cfg.SplitBytes}
	if _, err := j.Describe(ctx); err != nil {
		_ = p.close()
		return nil, err
	}
	return j, nil
}

// WrapJudge gives an implementation without a process (in-process, or an
// in-memory gRPC client in tests) the same validation and batching as a
// plugin process. name is used in messages.
func WrapJudge(name string, impl Judge) *PluginJudge {
	return &PluginJudge{name: name, inv: &direct{raw: impl, kind: wire.JudgeName, name: name}, split: wire.DefaultSplitBytes}
}

// Name returns the plugin's name.
func (j *PluginJudge) Name() string { return j.name }

// Restarts returns how many times the plugin process was restarted.
func (j *PluginJudge) Restarts() int { return j.inv.restarts() }

// Close stops the plugin process.
func (j *PluginJudge) Close() error { return j.inv.close() }

// Describe returns the judge's criteria and scale (cached after the first call).
func (j *PluginJudge) Describe(ctx context.Context) (spec.JudgeInfo, error) {
	j.mu.Lock()
	if j.info != nil {
		defer j.mu.Unlock()
		return *j.info, nil
	}
	j.mu.Unlock()
	var info spec.JudgeInfo
	err := j.inv.call(ctx, "Describe", func(ctx context.Context, raw any) error {
		var err error
		info, err = raw.(Judge).Describe(ctx)
		return err
	})
	if err != nil {
		return spec.JudgeInfo{}, err
	}
	if info.Scale.Max <= info.Scale.Min {
		return spec.JudgeInfo{}, fmt.Errorf("judge plugin %s describes an empty scale [%g, %g]", j.name, info.Scale.Min, info.Scale.Max)
	}
	j.mu.Lock()
	j.info = &info
	j.mu.Unlock()
	return info, nil
}

// Configure sends the options; they are replayed after a restart.
func (j *PluginJudge) Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error) {
	var ds []spec.Diagnostic
	err := j.inv.call(ctx, "Configure", func(ctx context.Context, raw any) error {
		var err error
		ds, err = raw.(Judge).Configure(ctx, config)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !spec.HasErrors(ds) {
		j.inv.setConfig(config)
	}
	return ds, nil
}

// Score judges items, in batches that fit the message limit. It returns one
// ItemResult per item in input order; voided items have Failed set.
func (j *PluginJudge) Score(ctx context.Context, items []spec.Item) (spec.ScoreResult, error) {
	info, err := j.Describe(ctx)
	if err != nil {
		return spec.ScoreResult{}, err
	}
	if err := uniqueIDs(items, func(it spec.Item) string { return it.ID }); err != nil {
		return spec.ScoreResult{}, fmt.Errorf("scoring with judge plugin %s: %w", j.name, err)
	}
	out := spec.ScoreResult{Results: make([]spec.ItemResult, len(items))}
	batches, tooBig := splitBatches(items, j.split, func(it spec.Item) int { return protoSize(wire.ItemToProto(it)) })
	for _, i := range tooBig {
		out.Results[i] = spec.ItemResult{ItemID: items[i].ID, Diagnostics: []spec.Diagnostic{spec.Errorf(items[i].ID,
			"item is larger than one plugin message (%d bytes)", j.split)}}
	}
	for _, b := range batches {
		batch := make([]spec.Item, len(b))
		for k, i := range b {
			batch[k] = items[i]
		}
		var res spec.ScoreResult
		err := j.inv.call(ctx, "Score", func(ctx context.Context, raw any) error {
			var err error
			res, err = raw.(Judge).Score(ctx, batch)
			return err
		})
		if err != nil {
			return spec.ScoreResult{}, err
		}
		got := matchResults(batch, res, info)
		for k, i := range b {
			out.Results[i] = got[k]
		}
		out.Statistics = append(out.Statistics, res.Statistics...)
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
	}
	for i := range out.Results {
		if spec.HasErrors(out.Results[i].Diagnostics) {
			out.Results[i].Failed = true
			out.Results[i].Scores = nil
			out.Results[i].Preferences = nil
			out.AnnotationFailures++
		}
	}
	return out, nil
}

// matchResults pairs results with the batch by id, validates scores and
// moves item-addressed call diagnostics onto their items.
func matchResults(batch []spec.Item, res spec.ScoreResult, info spec.JudgeInfo) []spec.ItemResult {
	byID := make(map[string]spec.ItemResult, len(res.Results))
	for _, r := range res.Results {
		byID[r.ItemID] = r
	}
	criteria := make(map[string]bool, len(info.Criteria))
	for _, c := range info.Criteria {
		criteria[c.ID] = true
	}
	callFailed := false
	extra := map[string][]spec.Diagnostic{}
	for _, d := range res.Diagnostics {
		if d.ItemID != "" {
			extra[d.ItemID] = append(extra[d.ItemID], d)
		} else if d.Severity == spec.SeverityError {
			callFailed = true
		}
	}
	out := make([]spec.ItemResult, len(batch))
	for k, it := range batch {
		r, ok := byID[it.ID]
		if !ok {
			r = spec.ItemResult{ItemID: it.ID, Diagnostics: []spec.Diagnostic{spec.Errorf(it.ID, "judge returned no result for this item")}}
		}
		r.Diagnostics = append(r.Diagnostics, extra[it.ID]...)
		if callFailed {
			r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "judge reported an error for the whole batch"))
		}
		for i := range r.Scores {
			s := &r.Scores[i]
			switch {
			case !criteria[s.CriterionID]:
				r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "score for unknown criterion %q", s.CriterionID))
			case math.IsNaN(s.Raw) || !info.Scale.Contains(s.Raw):
				r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "score %g for %s is off the scale [%g, %g]",
					s.Raw, s.CriterionID, info.Scale.Min, info.Scale.Max))
			default:
				s.Normalized = info.Scale.Normalize(s.Raw)
			}
		}
		out[k] = r
	}
	return out
}

func diagnosticsError(ds []spec.Diagnostic) error { return spec.DiagnosticsError(ds) }
