package textmetrics

import "math"

// Epsilon is NLTK's smoothing method 1 constant.
const Epsilon = 0.1

// SentenceBLEU is NLTK's sentence_bleu of hyp against refs with uniform
// weights over 1..n-grams and smoothing method 1.
func SentenceBLEU(refs [][]string, hyp []string, n int) float64 {
	if len(hyp) == 0 || len(refs) == 0 {
		return 0
	}
	logSum := 0.0
	for k := 1; k <= n; k++ {
		num, den := modifiedPrecision(refs, hyp, k)
		if k == 1 && num == 0 {
			return 0 // NLTK: no matching unigram, BLEU is 0 before smoothing
		}
		p := float64(num) / float64(den)
		if num == 0 {
			p = Epsilon / float64(den)
		}
		logSum += math.Log(p) / float64(n)
	}
	return brevityPenalty(refs, len(hyp)) * math.Exp(logSum)
}

// modifiedPrecision returns the clipped n-gram matches and the n-gram count
// of hyp (at least 1, as NLTK does).
func modifiedPrecision(refs [][]string, hyp []string, n int) (num, den int) {
	counts := ngrams(hyp, n)
	maxRef := map[string]int{}
	for _, r := range refs {
		for g, c := range ngrams(r, n) {
			maxRef[g] = max(maxRef[g], c)
		}
	}
	for g, c := range counts {
		num += min(c, maxRef[g])
		den += c
	}
	return num, max(den, 1)
}

func brevityPenalty(refs [][]string, c int) float64 {
	r := len(refs[0])
	for _, ref := range refs[1:] {
		d, best := abs(len(ref)-c), abs(r-c)
		if d < best || (d == best && len(ref) < r) {
			r = len(ref)
		}
	}
	if c > r {
		return 1
	}
	return math.Exp(1 - float64(r)/float64(c))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SelfBLEU is the mean over utterances of SentenceBLEU(others, utterance).
// ok is false when there are fewer than two utterances.
func SelfBLEU(utts [][]string, n int) (v float64, ok bool) {
	if len(utts) < 2 {
		return 0, false
	}
	sum := 0.0
	for i, hyp := range utts {
		refs := make([][]string, 0, len(utts)-1)
		refs = append(refs, utts[:i]...)
		refs = append(refs, utts[i+1:]...)
		sum += SentenceBLEU(refs, hyp, n)
	}
	return sum / float64(len(utts)), true
}

// Distinct is distinct n-grams over all n-grams of the utterances; ok is
// false when there are no n-grams.
func Distinct(utts [][]string, n int) (v float64, ok bool) {
	seen := map[string]bool{}
	total := 0
	for _, u := range utts {
		for g, c := range ngrams(u, n) {
			seen[g] = true
			total += c
		}
	}
	if total == 0 {
		return 0, false
	}
	return float64(len(seen)) / float64(total), true
}
