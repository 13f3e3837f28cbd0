// Package pairs is the `pairs` stage kind: chosen/rejected preference pairs
// from a judge stage over candidates, the training data of the reward model
// and of DPO.
//
// One unit is one query (context, persona), i.e. one judge unit. A
// candidate's score is the mean over criteria of its criterion scores on
// the raw 1–5 scale, each criterion's score being the mean over the judge
// rows of that candidate (per-model and pooled rows; the pooled score is
// their mean, so it does not shift the mean). Every pair of candidates whose
// scores differ by at least margin gives one pair (higher = chosen), so a
// query gives at most K·(K−1)/2 pairs; max_per_query keeps the pairs with
// the largest margins (ties broken by candidate ids, deterministic).
//
// Episodes judged collectively are not turned into pairs: the pairs table
// links candidates only (its foreign keys), so a judge over episodes is
// refused with an error that says so.
//
// Layer: runner/stages.
package pairs
