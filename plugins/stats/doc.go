// Package stats holds the statistics over judgements that mascot reports:
// inter-judge agreement (Krippendorff's alpha with interval and ordinal
// distances, and the interval one in linear time for a whole run; Cohen's
// kappa; Spearman's rank correlation). The rubric judge uses it for per-batch
// figures; the runner and report can use it over a whole run. Win rates of
// comparisons are results/report's (report.WinRates). Pure functions, no I/O.
package stats
