package host

import (
	"context"
	"encoding/json"

	"mascot.dev/mascot/plugins/spec"
)

// Value types shared with plugins (see plugins/spec).
type (
	// Item is one thing to judge: a candidate, a turn, an episode or block, or a comparison.
	Item = spec.Item
	// ItemKind is candidate, turn, episode or comparison.
	ItemKind = spec.ItemKind
	// Turn is one utterance.
	Turn = spec.Turn
	// Directive is the Director's instruction for a turn.
	Directive = spec.Directive
	// Alternative is one side of a comparison.
	Alternative = spec.Alternative
	// Episode is one conversation given to a metric.
	Episode = spec.Episode
	// JudgeInfo describes a judge: criteria, scale, rubric version.
	JudgeInfo = spec.JudgeInfo
	// Criterion is one scored dimension.
	Criterion = spec.Criterion
	// Scale is the raw score range.
	Scale = spec.Scale
	// Score is one criterion's score (raw and 0–100) from one judge or pooled.
	Score = spec.Score
	// RawOutput is a judge model's verbatim output.
	RawOutput = spec.RawOutput
	// Preference is a comparison outcome.
	Preference = spec.Preference
	// ItemResult is the judgement of one item.
	ItemResult = spec.ItemResult
	// Statistic is a batch-level figure (agreement).
	Statistic = spec.Statistic
	// ScoreResult is a batch of judgements.
	ScoreResult = spec.ScoreResult
	// Diagnostic is a problem reported as data.
	Diagnostic = spec.Diagnostic
	// MetricDescription describes a metric plugin.
	MetricDescription = spec.MetricDescription
	// MetricInfo describes one metric value.
	MetricInfo = spec.MetricInfo
	// EpisodeValues are one episode's metric values.
	EpisodeValues = spec.EpisodeValues
	// ComputeResult is a batch of metric values.
	ComputeResult = spec.ComputeResult
)

// Item kinds.
const (
	KindCandidate  = spec.KindCandidate
	KindTurn       = spec.KindTurn
	KindEpisode    = spec.KindEpisode
	KindComparison = spec.KindComparison
)

// Judge is what the judge and pairs stages consume.
type Judge interface {
	// Describe returns the criteria and the scale.
	Describe(ctx context.Context) (JudgeInfo, error)
	// Configure passes the judge's options (JSON); error diagnostics mean
	// the configuration was refused.
	Configure(ctx context.Context, config json.RawMessage) ([]Diagnostic, error)
	// Score judges items. The result has one ItemResult per item, in order.
	// An error means the whole call failed (transport); item problems are
	// diagnostics on failed items.
	Score(ctx context.Context, items []Item) (ScoreResult, error)
}

// Metric is what the metrics stage consumes.
type Metric interface {
	Describe(ctx context.Context) (MetricDescription, error)
	Configure(ctx context.Context, config json.RawMessage) ([]Diagnostic, error)
	// Compute returns one EpisodeValues per episode, in order, and mean aggregates.
	Compute(ctx context.Context, episodes []Episode) (ComputeResult, error)
}
