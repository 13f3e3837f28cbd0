package qwen3

import (
	"math"
	"slices"
	"testing"
)

// TestScoreEqualsReferenceOnLongSequence checks the cached-decoder Score
// against the score head applied to the reference forward's hidden state,
// on a sequence long enough that its rows attend in parallel.
func TestScoreEqualsReferenceOnLongSequence(t *testing.T) {
	c := Tiny()
	c.Architectures = []string{SequenceClassification}
	c.NumLabels = 2
	pad := 0
	c.PadTokenID = &pad
	m, err := NewRandom(c, 21)
	if err != nil {
		t.Fatal(err)
	}
	ids := randomIDs(600, c.VocabSize, 5)
	for i := range ids {
		ids[i] = 1 + ids[i]%(c.VocabSize-1) // no pad inside
	}
	got, err := m.Score(append(ids, pad, pad, pad))
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Hidden(ids)
	if err != nil {
		t.Fatal(err)
	}
	D, last := c.HiddenSize, len(ids)-1
	for l := 0; l < c.NumLabels; l++ {
		var want float64
		for i := 0; i < D; i++ {
			want += float64(m.ScoreHead().Data[l*D+i]) * float64(h.Data[last*D+i])
		}
		if d := math.Abs(float64(got[l]) - want); d > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("label %d: score %v, reference %v", l, got[l], want)
		}
	}
}

// BenchmarkScore scores one 1,400-token sequence with the demo's reward
// model shape (hidden 64, 2 layers, 4 heads of 16, 2 kv heads): a GRPO
// reward call.
//
//	go test ./trainer/qwen3 -run '^$' -bench Score -benchtime 5x
func BenchmarkScore(b *testing.B) {
	c := Tiny()
	c.Architectures, c.NumLabels = []string{SequenceClassification}, 1
	c.IntermediateSize, c.HeadDim, c.MaxPositionEmbeddings = 128, 16, 8192
	m, err := NewRandom(c, 3)
	if err != nil {
		b.Fatal(err)
	}
	ids := randomIDs(1400, c.VocabSize, 4)
	for b.Loop() {
		if _, err := m.Score(ids); err != nil {
			b.Fatal(err)
		}
	}
}

// A Scorer gives Score's bits on sequences that share prefixes with the
// one before (longer, shorter, one token apart, repeated, padded, new).
func TestScorerEqualsScoreBitForBit(t *testing.T) {
	c := Tiny()
	c.Architectures, c.NumLabels = []string{SequenceClassification}, 1
	pad := 0
	c.PadTokenID = &pad
	m, err := NewRandom(c, 22)
	if err != nil {
		t.Fatal(err)
	}
	prompt := randomIDs(300, c.VocabSize, 6)
	for i := range prompt {
		prompt[i] = 1 + prompt[i]%(c.VocabSize-1)
	}
	with := func(tail ...int) []int { return append(slices.Clone(prompt), tail...) }
	seqs := [][]int{
		with(5, 6, 7, 8), with(5, 6, 9), with(5, 6, 9), with(5, 6, 9, 11, 12, 13, 14),
		with(5, 6, 9, 11, pad, pad), with(5), prompt[:120], with(4, 4), {7}, with(5, 6, 9, 11),
	}
	sc := m.NewScorer()
	for i, ids := range seqs {
		want, err := m.Score(ids)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.Score(ids)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sequence %d: Scorer %v, Score %v", i, got, want)
		}
	}
}
