package loss

import (
	"fmt"
	"math"
)

// Reward scaling modes of GRPO advantages (TRL scale_rewards).
const (
	ScaleGroup = "group"
	ScaleBatch = "batch"
	ScaleNone  = "none"
)

// GroupAdvantages turns rewards of consecutive groups of groupSize
// completions (one group per prompt) into GRPO advantages
// (docs/design/trl-losses.md, "GRPO"): A = r − mean_group, divided by (std + 1e-4) where std is the
// Bessel-corrected standard deviation of the group ("group"), of the
// whole batch ("batch"), or not divided ("none"). NaN rewards (a reward
// function that had no answer) are left out of the statistics and get
// advantage 0.
func GroupAdvantages(rewards []float64, groupSize int, scale string) ([]float64, error) {
	if groupSize < 2 || len(rewards)%groupSize != 0 {
		return nil, fmt.Errorf("computing advantages: %d rewards in groups of %d (need ≥ 2 and a multiple)", len(rewards), groupSize)
	}
	switch scale {
	case ScaleGroup, ScaleBatch, ScaleNone:
	default:
		return nil, fmt.Errorf("computing advantages: unknown scale_rewards %q", scale)
	}
	adv := make([]float64, len(rewards))
	batchStd := nanStd(rewards)
	for g := 0; g < len(rewards); g += groupSize {
		grp := rewards[g : g+groupSize]
		mean := nanMean(grp)
		std := nanStd(grp)
		if scale == ScaleBatch {
			std = batchStd
		}
		for i, r := range grp {
			if math.IsNaN(r) {
				continue
			}
			a := r - mean
			if scale != ScaleNone {
				a /= std + 1e-4
			}
			adv[g+i] = a
		}
	}
	return adv, nil
}

func nanMean(x []float64) float64 {
	var s, n float64
	for _, v := range x {
		if !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / n
}

// nanStd is the Bessel-corrected standard deviation ignoring NaNs (0 for
// fewer than two values).
func nanStd(x []float64) float64 {
	m := nanMean(x)
	var s, n float64
	for _, v := range x {
		if !math.IsNaN(v) {
			s += (v - m) * (v - m)
			n++
		}
	}
	if n < 2 {
		return 0
	}
	return math.Sqrt(s / (n - 1))
}

// MeanStd returns the mean and Bessel-corrected std of x, ignoring NaNs.
func MeanStd(x []float64) (float64, float64) { return nanMean(x), nanStd(x) }
