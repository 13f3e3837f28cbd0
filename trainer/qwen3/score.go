package qwen3

import (
	"fmt"
	"sync"
)

// LastNonPad is the index the sequence-classification head pools at: the
// rightmost position whose id differs from pad (works for left or right
// padding), or the last position when pad is nil. It is −1 for an
// all-padding sequence.
func LastNonPad(ids []int, pad *int) int {
	if pad == nil {
		return len(ids) - 1
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] != *pad {
			return i
		}
	}
	return -1
}

// Score runs a sequence-classification model (score.weight [num_labels,
// hidden]) and returns the num_labels scores at the last non-pad token
// (Config.PadTokenID), as GenericForSequenceClassification pools. Padding
// tokens still pass through the model; like transformers without an
// attention mask they only matter when they precede the pooled position.
func (m *Model) Score(ids []int) ([]float32, error) {
	seq, err := m.pooled(ids)
	if err != nil {
		return nil, err
	}
	return m.scoreFrom(m.NewCache(), seq), nil
}

// pooled checks ids and returns them up to the pooled position.
func (m *Model) pooled(ids []int) ([]int, error) {
	if m.score == nil {
		return nil, fmt.Errorf("scoring: model has no score head (architectures %v)", m.Config.Architectures)
	}
	at := LastNonPad(ids, m.Config.PadTokenID)
	if at < 0 {
		return nil, fmt.Errorf("scoring: sequence is all padding")
	}
	if err := m.checkTokens(ids[:at+1]); err != nil {
		return nil, err
	}
	return ids[:at+1], nil
}

// scoreFrom prefills seq[c.Len():] onto c with the cached decoder (rows
// attend in parallel, only the last row goes through the final norm) and
// returns the score head at the last position.
func (m *Model) scoreFrom(c *Cache, seq []int) []float32 {
	rows := make([]row, 0, len(seq)-c.n)
	for i := c.n; i < len(seq); i++ {
		rows = append(rows, row{c: c, tok: seq[i], pos: i})
	}
	want := make([]bool, len(rows))
	want[len(rows)-1] = true
	h := m.decodeRows(rows, want)
	out := make([]float32, m.Config.NumLabels)
	matmulT(h, 1, m.Config.HiddenSize, m.score.Data, m.Config.NumLabels, out, false)
	return out
}

// Scorer is Score with the keys and values of the previous sequence kept:
// a sequence that shares a prefix with it prefills only the rest (a GRPO
// group scores several completions of one prompt). The scores are the
// same, bit for bit, as Score's: the decoder gives a row the same bits in
// any batch (see Extend). Safe for concurrent use.
type Scorer struct {
	m    *Model
	mu   sync.Mutex
	last []int
	c    *Cache
}

// NewScorer returns a Scorer over m.
func (m *Model) NewScorer() *Scorer { return &Scorer{m: m} }

// Score is Model.Score, reusing the prefix shared with the previous call.
func (s *Scorer) Score(ids []int) ([]float32, error) {
	seq, err := s.m.pooled(ids)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := 0
	for keep < min(len(s.last), len(seq)-1) && s.last[keep] == seq[keep] {
		keep++
	}
	if keep == 0 || s.c == nil {
		s.c = s.m.NewCache()
	} else {
		s.c.Truncate(keep)
	}
	s.last = append(s.last[:0], seq...)
	return s.m.scoreFrom(s.c, seq), nil
}
