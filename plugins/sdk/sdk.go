package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"mascot.dev/mascot/plugins/internal/wire"
	"mascot.dev/mascot/plugins/spec"
)

// Re-exported value types, so that authors import only this package.
type (
	// Item is one thing to judge.
	Item = spec.Item
	// Turn is one utterance.
	Turn = spec.Turn
	// Directive is the Director's instruction for a turn.
	Directive = spec.Directive
	// Alternative is one side of a comparison item.
	Alternative = spec.Alternative
	// Episode is one conversation given to a metric.
	Episode = spec.Episode
	// JudgeInfo describes a judge.
	JudgeInfo = spec.JudgeInfo
	// Criterion is one scored dimension.
	Criterion = spec.Criterion
	// Anchor explains one scale point.
	Anchor = spec.Anchor
	// Scale is the raw score range.
	Scale = spec.Scale
	// Score is one criterion's score.
	Score = spec.Score
	// RawOutput is a judge model's verbatim output.
	RawOutput = spec.RawOutput
	// Preference is a comparison outcome.
	Preference = spec.Preference
	// Statistic is a batch-level figure.
	Statistic = spec.Statistic
	// ItemResult is the judgement of one item.
	ItemResult = spec.ItemResult
	// ScoreResult is a batch of judgements.
	ScoreResult = spec.ScoreResult
	// Diagnostic is a problem reported as data.
	Diagnostic = spec.Diagnostic
	// MetricDescription describes a metric plugin.
	MetricDescription = spec.MetricDescription
	// MetricInfo describes one metric value.
	MetricInfo = spec.MetricInfo
	// EpisodeValues are one episode's values.
	EpisodeValues = spec.EpisodeValues
	// ComputeResult is a batch of metric values.
	ComputeResult = spec.ComputeResult
)

// Severities of diagnostics.
const (
	SeverityError   = spec.SeverityError
	SeverityWarning = spec.SeverityWarning
)

// Judge is what a judge plugin implements.
type Judge interface {
	// Describe returns the criteria and scale; it may be called before Configure.
	Describe(ctx context.Context) (JudgeInfo, error)
	// Configure receives the judge's options as JSON; see DecodeConfig.
	Configure(ctx context.Context, config json.RawMessage) ([]Diagnostic, error)
	// Score judges a batch: one ItemResult per item, same order and ids.
	Score(ctx context.Context, items []Item) (ScoreResult, error)
}

// Metric is what a metric plugin implements.
type Metric interface {
	Describe(ctx context.Context) (MetricDescription, error)
	Configure(ctx context.Context, config json.RawMessage) ([]Diagnostic, error)
	// Compute returns one EpisodeValues per episode and mean aggregates.
	Compute(ctx context.Context, episodes []Episode) (ComputeResult, error)
}

// ErrNotUnderHost is returned by the Serve functions when the process was
// not started by mascot (the handshake cookie is missing).
var ErrNotUnderHost = errors.New("this is a mascot plugin: it is started by mascot (for example through a judge or metrics stage), not run by hand")

// ServeJudge serves impl as a judge plugin until the host disconnects.
func ServeJudge(impl Judge) error {
	return serve(plugin.PluginSet{wire.JudgeName: &wire.JudgePlugin{Impl: impl}})
}

// ServeMetric serves impl as a metric plugin until the host disconnects.
func ServeMetric(impl Metric) error {
	return serve(plugin.PluginSet{wire.MetricName: &wire.MetricPlugin{Impl: impl}})
}

func serve(set plugin.PluginSet) error {
	if os.Getenv(wire.Handshake.MagicCookieKey) != wire.Handshake.MagicCookieValue {
		return ErrNotUnderHost
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         set,
		GRPCServer:      wire.GRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Info,
			Output: os.Stderr, JSONFormat: true}),
	})
	return nil
}

// JudgePluginSet returns the go-plugin set serving impl; tests use it with
// plugin.TestPluginGRPCConn to run a judge in memory.
func JudgePluginSet(impl Judge) plugin.PluginSet {
	return plugin.PluginSet{wire.JudgeName: &wire.JudgePlugin{Impl: impl}}
}

// MetricPluginSet is JudgePluginSet for metrics.
func MetricPluginSet(impl Metric) plugin.PluginSet {
	return plugin.PluginSet{wire.MetricName: &wire.MetricPlugin{Impl: impl}}
}
