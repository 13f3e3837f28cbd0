// Package judge is the `judge` stage kind: it scores stored items with
// judge plugins (plugins/host) and writes results.Judgment rows, or
// results.Comparison rows for head-to-head comparisons.
//
// Items and units:
//   - items = a candidates stage: one unit per upstream (context, persona)
//     unit, so its K candidates are judged in one batch; each candidate is
//     an item of kind candidate (context = the dataset sample's context,
//     persona = the roster card).
//   - items = an episodes stage, level agent: one unit per upstream
//     episodes unit; each agent turn is an item of kind turn (context = the
//     turns before it). Level collective: each episode is an item of kind
//     episode (block_turns is passed to the rubric judge, which scores
//     N-turn blocks and reports their mean).
//   - level compare: one unit per context present in every stage of
//     items + compare; one comparison item per episode index holds one
//     alternative per stage (system = stage key), and each preference
//     becomes a Comparison row, which `mascot report` turns into win rates.
//     Head-to-head and three-way comparisons are this mode of the judge
//     stage, not a kind of their own: they read stored episodes and run
//     the same judge plugins with the same lifecycle, cache and counters;
//     only their items and rows differ. The order each judge sees is drawn
//     from the item's seed (seed), the same on every run; the prompt's
//     words and parser are experiments/prompts/comparison.{cue,go}.
//
// Unit inputs hold the fingerprints of the upstream units read, so a
// changed judge config (which enters the stage fingerprint by value)
// re-judges stored items without regenerating them.
//
// Rows: one per criterion per item per judge. A plugin's per-model score
// is stored under "<judge>/<model name>", its pooled score (plugin judge
// "") under "<judge>", so means over a judge's rows equal the pooled mean.
// Items the host voids (error diagnostics) are counted in
// num_annotation_failures and get no rows.
//
// Layer: runner/stages.
package judge
