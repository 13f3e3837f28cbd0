package train

import (
	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/pass"
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

// EncodeScored is the one tokenisation of a prompt and a completion that
// reward models are trained and scored on: the prompt and the completion
// encoded separately (so the tokens are those a sampler emits after the
// prompt) and concatenated, with the tokenizer's EOS appended when the
// completion lacks it (TRL appends eos for plain-text data). It returns
// the ids and the prompt's length. A maxPrompt > 0 keeps only the prompt's
// last maxPrompt tokens (left truncation, as TRL cuts GRPO and DPO
// prompts): the end of a chat prompt holds the last turns and the
// generation prompt. Training (TrainRewardModel) and the runner's
// reward-model scorer both call it, with the same maxPrompt.
func EncodeScored(tok Tokenizer, prompt, completion string, maxPrompt int) ([]int, int) {
	pr := tok.Encode(prompt)
	if maxPrompt > 0 && len(pr) > maxPrompt {
		pr = pr[len(pr)-maxPrompt:]
	}
	return append(append([]int(nil), pr...), withEOS(tok.Encode(completion), tok.EOS())...), len(pr)
}

// encodePairs tokenises pairs with EncodeScored (prompts cut to their last
// maxPrompt tokens, 0 = whole) and drops or truncates sequences longer
// than maxLen (0 = no limit). Pairs with an empty prompt are dropped,
// since position start−1 must exist.
func encodePairs(tok Tokenizer, pairs []Pair, maxPrompt, maxLen int, long overLong) []encodedPair {
	var out []encodedPair
	for _, p := range pairs {
		c, np := EncodeScored(tok, p.Prompt, p.Chosen, maxPrompt)
		r, _ := EncodeScored(tok, p.Prompt, p.Rejected, maxPrompt)
		if np == 0 {
			continue
		}
		if maxLen > 0 && (len(c) > maxLen || len(r) > maxLen) {
			if long == dropOverLong {
				continue
			}
			c, r = c[:min(len(c), maxLen)], r[:min(len(r), maxLen)]
		}
		out = append(out, encodedPair{chosen: c, rejected: r, start: np, margin: p.Margin})
	}
	return out
}

// pairBatch stacks [chosen...; rejected...] rows, padded to their own
// longest.
func pairBatch(ps []encodedPair, idx []int) pass.Batch {
	var b pass.Batch
	for _, i := range idx {
		b.IDs = append(b.IDs, ps[i].chosen)
	}
	for _, i := range idx {
		b.IDs = append(b.IDs, ps[i].rejected)
	}
	return b
}

// pairLen is the bucketing length of pair i: its longer sequence.
func pairLen(ps []encodedPair) func(i int) int {
	return func(i int) int { return max(len(ps[i].chosen), len(ps[i].rejected)) }
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
