package qwen3

import "fmt"

// LogProbs returns, for every completion token, log softmax(logits/T) at
// the position predicting it, given prompt then completion (TRL's per-token
// log-probs: logits divided by the sampling temperature T before the
// log-softmax; T ≤ 0 means 1). The prompt must not be empty.
func (m *Model) LogProbs(prompt, completion []int, temperature float32) ([]float32, error) {
	if len(prompt) == 0 {
		return nil, fmt.Errorf("computing log-probs: empty prompt")
	}
	if len(completion) == 0 {
		return nil, nil
	}
	ids := append(append(make([]int, 0, len(prompt)+len(completion)), prompt...), completion[:len(completion)-1]...)
	if err := m.checkTokens(append(ids, completion[len(completion)-1])); err != nil {
		return nil, err
	}
	c := m.NewCache()
	rows := make([]row, len(ids))
	want := make([]bool, len(ids))
	for i, id := range ids {
		rows[i] = row{c: c, tok: id, pos: i}
		want[i] = i >= len(prompt)-1
	}
	logits, err := m.logitsRows(rows, want)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(completion))
	for i, lg := range logits {
		out[i] = logProbOf(lg, completion[i], temperature)
	}
	return out, nil
}

// logProbOf is LogSoftmax(logits, temperature)[tok] without the full
// output slice.
func logProbOf(logits []float32, tok int, temperature float32) float32 {
	return LogSoftmax(logits, temperature)[tok]
}
