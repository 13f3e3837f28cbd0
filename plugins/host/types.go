package host

import (
	"context"
	"encoding/json"

	"mascot.dev/mascot/plugins/spec"
)

// The value types the host exchanges with plugins (Item, ScoreResult,
// ...) are plugins/spec's, used by that name: plugins/sdk aliases them for
// plugin authors, the host does not.

// Judge is what the judge and pairs stages consume.
type Judge interface {
	// Describe returns the criteria and the scale.
	Describe(ctx context.Context) (spec.JudgeInfo, error)
	// Configure passes the judge's options (JSON); error diagnostics mean
	// the configuration was refused.
	Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error)
	// Score judges items. The result has one ItemResult per item, in order.
	// An error means the whole call failed (transport); item problems are
	// diagnostics on failed items.
	Score(ctx context.Context, items []spec.Item) (spec.ScoreResult, error)
}

// Metric is what the metrics stage consumes.
type Metric interface {
	Describe(ctx context.Context) (spec.MetricDescription, error)
	Configure(ctx context.Context, config json.RawMessage) ([]spec.Diagnostic, error)
	// Compute returns one EpisodeValues per episode, in order, and mean aggregates.
	Compute(ctx context.Context, episodes []spec.Episode) (spec.ComputeResult, error)
}
