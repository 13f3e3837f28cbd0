// Package metrics is the `metrics` stage kind: automatic metrics (self-BLEU,
// distinct-n, NLI contradiction, or third-party metric plugins) over the
// episodes of an episodes stage.
//
// One unit is one metric over all episodes of the input stage; its inputs
// are the metric name and the sorted fingerprints of the episodes units, so
// new episodes recompute it and a rerun over the same episodes reuses it.
// Rows: one results.Metric per episode and value (EpisodeID set), and one
// aggregate row per value and system (EpisodeID 0): the mean over that
// system's episodes the metric could score. Episodes the host voids are
// counted in num_metric_failures and get no rows.
//
// For a metric with an endpoint (nli-contradiction) and options without a
// url, the endpoint's first url and model are added to its options.
//
// Layer: runner/stages.
package metrics
