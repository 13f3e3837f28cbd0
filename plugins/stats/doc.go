// Package stats holds the statistics over judgements that mascot reports:
// inter-judge agreement (Krippendorff's alpha with interval and ordinal
// distances, Cohen's kappa). The rubric judge uses it for per-batch
// figures; the runner and report can use it over a whole run. Win rates of
// comparisons are results/report's (report.WinRates). Pure functions, no I/O.
package stats
