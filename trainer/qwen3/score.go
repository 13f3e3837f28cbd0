package qwen3

import "fmt"

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
	// The cached decoder's prefill (rows attend in parallel, only the
	// pooled row goes through the final norm), not the reference forward.
	c := m.NewCache()
	rows := make([]row, at+1)
	for i, id := range ids[:at+1] {
		rows[i] = row{c: c, tok: id, pos: i}
	}
	want := make([]bool, at+1)
	want[at] = true
	h := m.decodeRows(rows, want)
	out := make([]float32, m.Config.NumLabels)
	matmulT(h, 1, m.Config.HiddenSize, m.score.Data, m.Config.NumLabels, out, false)
	return out, nil
}
