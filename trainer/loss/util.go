package loss

import "math"

// LogSigmoid returns log σ(x) without overflow.
func LogSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// Sigmoid returns σ(x) = 1/(1+e^-x).
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// LastNonPad returns the index of the rightmost token that is not pad, as
// transformers' sequence-classification pooling does
// (argmax(arange(T)·(ids != pad))); 0 when every token is pad.
func LastNonPad(ids []int, pad int) int {
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] != pad {
			return i
		}
	}
	return 0
}

// CompletionMask returns the GRPO mask of a sampled completion: 1 up to
// and including the first eos, 0 after it. With maskTruncated, a
// completion that never emits eos (truncated) gets an all-zero mask, as
// TRL's mask_truncated_completions.
func CompletionMask(completion []int, eos int, maskTruncated bool) []float64 {
	m := make([]float64, len(completion))
	for i, id := range completion {
		m[i] = 1
		if id == eos {
			return m
		}
	}
	if maskTruncated {
		clear(m)
	}
	return m
}

// sum2 adds every element of a masked [seq][tok] slice.
func sum2(m [][]float64) float64 {
	var s float64
	for _, row := range m {
		for _, v := range row {
			s += v
		}
	}
	return s
}

func zerosLike(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = make([]float64, len(a[i]))
	}
	return out
}
