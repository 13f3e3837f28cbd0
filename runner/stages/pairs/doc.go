// Package pairs is the `pairs` stage kind: chosen/rejected preference pairs
// from a judge stage over candidates, the training data of the reward model
// and of DPO.
//
// One unit is one query (context, persona), i.e. one judge unit. A
// candidate's score is the mean over criteria of its criterion scores on
// the raw 1–5 scale, each criterion's score being the mean over the judge
// rows of that candidate (per-model and pooled rows; the pooled score is
// their mean, so it does not shift the mean). Scores are compared on the
// judge's own scale, in exact rational arithmetic (exact.go): each stored
// score is read as the simplest fraction it rounds from (4, 7/2, 17/5,
// 11/3), the means are exact, and so is the margin (1.0 → 1). A gap equal
// to the margin is therefore kept; in float64 2.8 − 1.8 is
// 0.9999999999999998 and such pairs were dropped. The stored scores and
// margin are the exact values rounded once to float64. Every pair of
// candidates whose scores differ by at least margin gives one pair
// (higher = chosen), so a
// query gives at most K·(K−1)/2 pairs; max_per_query keeps the pairs with
// the largest margins (ties broken by candidate ids, deterministic).
//
// Equal scores never make a pair. Episodes judged collectively give group
// pairs per context the same way (one unit per context, score = mean over
// the collective criteria). The pairs table links candidates, so each
// paired episode is stored as a candidate of kind "block" owned by the
// pairs unit: text = "Speaker: text" transcript, meta = {"episode_id",
// "system"}; consumers follow meta.episode_id back to the episode.
//
// Layer: runner/stages.
package pairs
