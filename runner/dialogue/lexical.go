package dialogue

import "strings"

// tokens lower-cases s and splits it into letter/digit words.
func tokens(s string) []string {
	return strings.Fields(normWords(s))
}

// UnigramF1 is the bag-of-words F1 overlap of a and b (0 when either is
// empty).
func UnigramF1(a, b string) float64 {
	ta, tb := tokens(a), tokens(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, t := range tb {
		count[t]++
	}
	overlap := 0
	for _, t := range ta {
		if count[t] > 0 {
			count[t]--
			overlap++
		}
	}
	if overlap == 0 {
		return 0
	}
	p := float64(overlap) / float64(len(ta))
	r := float64(overlap) / float64(len(tb))
	return 2 * p * r / (p + r)
}

// MostConsistent returns the index of the text with the highest mean
// UnigramF1 against all the others (self-consistency by lexical
// agreement); ties go to the lowest index. It returns -1 for no texts.
func MostConsistent(texts []string) int {
	if len(texts) == 0 {
		return -1
	}
	best, bestScore := 0, -1.0
	for i := range texts {
		sum := 0.0
		for j := range texts {
			if i != j {
				sum += UnigramF1(texts[i], texts[j])
			}
		}
		if sum > bestScore+1e-12 {
			best, bestScore = i, sum
		}
	}
	return best
}
