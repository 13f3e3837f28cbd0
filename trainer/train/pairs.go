package train

import (
	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/loss"
)

// encodedPair is a tokenised preference pair: full sequences and the
// index of the first completion token in each.
type encodedPair struct {
	chosen, rejected []int
	start            int // len(prompt tokens)
	margin           float64
}

// overLong is what encodePairs does with a sequence longer than maxLen.
type overLong int

const (
	// dropOverLong drops the pair, as TRL's RewardTrainer does.
	dropOverLong overLong = iota
	// keepStart keeps each sequence's first maxLen tokens, as TRL's
	// DPOTrainer does (truncation_mode "keep_start"); a completion cut to
	// nothing adds nothing to either log-prob.
	keepStart
)

// encodePairs tokenises pairs, appending EOS to completions, and drops or
// truncates sequences longer than maxLen (0 = no limit). Pairs with an
// empty prompt are dropped, since position start−1 must exist.
func encodePairs(tok Tokenizer, pairs []Pair, maxLen int, long overLong) []encodedPair {
	var out []encodedPair
	for _, p := range pairs {
		pr := tok.Encode(p.Prompt)
		c := append(append([]int(nil), pr...), withEOS(tok.Encode(p.Chosen), tok.EOS())...)
		r := append(append([]int(nil), pr...), withEOS(tok.Encode(p.Rejected), tok.EOS())...)
		if len(pr) == 0 {
			continue
		}
		if maxLen > 0 && (len(c) > maxLen || len(r) > maxLen) {
			if long == dropOverLong {
				continue
			}
			c, r = c[:min(len(c), maxLen)], r[:min(len(r), maxLen)]
		}
		out = append(out, encodedPair{chosen: c, rejected: r, start: len(pr), margin: p.Margin})
	}
	return out
}

// pairBatch stacks [chosen...; rejected...] rows.
func pairBatch(ps []encodedPair, idx []int, T int) autodiff.Batch {
	b := autodiff.Batch{T: T}
	for _, i := range idx {
		b.IDs = append(b.IDs, ps[i].chosen)
	}
	for _, i := range idx {
		b.IDs = append(b.IDs, ps[i].rejected)
	}
	return b
}

func pairsLen(ps []encodedPair) int {
	n := 0
	for _, p := range ps {
		n = max(n, len(p.chosen), len(p.rejected))
	}
	return n
}

// completionLogP sums row's completion log-probs (positions start−1 .. len−2).
func completionLogP(logp []float64, start, n int) float64 {
	var s float64
	for t := start - 1; t < n-1; t++ {
		s += logp[t]
	}
	return s
}

// mean is the arithmetic mean (0 for no values).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// completionMask is loss.CompletionMask (kept here so rollouts read in one place).
func completionMask(c []int, eos int, maskTruncated bool) []float64 {
	return loss.CompletionMask(c, eos, maskTruncated)
}
