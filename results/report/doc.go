// Package report turns a run's results into paper-style tables: per system
// × split (valence or domain) × criterion, mean ± std, with Overall = mean
// of the criteria, bootstrap 95% confidence intervals, paired per-sample
// differences between two runs with Cohen's d_z, and win rates of pairwise /
// three-way judgments and of human preferences. Renderers write terminal
// text, markdown, CSV and JSON, a self-contained HTML page and LaTeX
// booktabs tables; figures*.go turn reports, comparisons, sweeps and
// training curves into SVG plots (results/figures).
//
// Layer: report reads through results (results.ScoreGroupsIn: values
// packed one row per unit, summed per episode and criterion in dense
// arrays) and is used by the CLI (`mascot report`, `mascot results
// compare`), the report stage and the web viewer. It never writes.
//
// Scope: a report covers the run's evaluation episodes (every episode
// whose mode is not in results.TrainingModes) and the comparisons of
// those episodes. Options.IncludeTraining adds the training-time episodes
// as rows of their own (Row.Population: their mode), never pooled with
// evaluation rows. Options.Units restricts a report to the judgments,
// comparisons and metrics recorded by those units (a pipeline's
// evaluation stages); a row's N is then the episodes they scored at its
// level, training-time ones in rows of their own. Compare pairs
// evaluation episodes only. Columns follow the rubric's order
// (experiments/prompts/criteria.cue, results.CriterionLess).
//
// Statistics, exactly:
//   - A sample is an episode. Its value for a criterion is the mean over
//     judges and over its judged turns (or agents) of the score normalised
//     to 0..100 as 100·(s−min)/(max−min). Its Overall is the plain mean of
//     the criteria it has. Metrics (level "metric") are not normalised and
//     get no Overall.
//   - Mean is the arithmetic mean; Std is the sample standard deviation
//     (divisor n−1; 0 when n < 2).
//   - Order: a report is a function of the rows, not of the order the
//     database stores them in (ids follow insertion). Within a group the
//     episodes are in canonical order: by pair key (conv_id#sample), ties
//     broken by their values (canonical.go); every sum runs in that order.
//   - CI: percentile bootstrap. For each cell group (level, system, split)
//     a fresh PCG stream rand.NewPCG(Seed, S) (math/rand/v2) draws, where S
//     is the FNV-1a hash of the group's pair keys in canonical order (each
//     followed by a NUL byte), for each of B resamples (default 1000), n
//     episode indices; each 64-bit output gives two, low 32 bits first, as
//     idx = (h · n) >> 32 (multiply-shift, n < 2³²).
//     Each criterion's resample mean is over the drawn episodes that have
//     it. The bounds are the (1−c)/2 and (1+c)/2 quantiles of the B
//     resample means with linear interpolation between order statistics
//     (type 7: h = (B−1)p, x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])). The same
//     procedure on per-sample differences gives paired CIs. Rows of one
//     system × split with the same episodes (per-agent, collective,
//     metrics) share one pass of draws: the draws depend only on n, the
//     seed and the keys, so each cell is what its own pass would give.
//   - Paired differences (Compare): episodes are matched on conv_id and
//     sample index (and system, when both runs contain it); diff = A − B;
//     d_z = mean(diff) / sd(diff) (sd with n−1).
//   - Win rates: wins / appearances per system among comparisons that
//     showed it; ties are reported separately and count as no win; 95%
//     Wilson score interval. Sources are the comparison rows' judges (a
//     plugin's lone model's copy of its pooled verdict is dropped) and,
//     for comparisons two or more judges decided, their majority (a
//     system more than half chose, else a tie).
//   - Several judges (JudgeTable, judges.go): per level, each judge's
//     Overall per episode (its criterion means over the episode's items,
//     then their mean), summarised per row as the main tables are; per
//     criterion and for Overall (an item's mean over the criteria a judge
//     scored), Krippendorff's interval alpha over the items two or more
//     judges scored (linear-time form, plugins/stats) and each pair's
//     Spearman rho (mid-ranks), items in content order (results.JudgeScore.Item).
//
// Results are stored (Cached, migration 0010): a run's tables and score
// groups and a comparison's paired tables are kept with the stamps of
// their runs, which triggers bump on every write the tables read, and are
// served, bit for bit what a fresh computation gives, until then.
// Options.NoCache computes afresh; docs/results.md ("Stored results")
// tells the rules.
package report
