package prompts

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
)

//go:embed comparison.cue
var comparisonCUE []byte

// ComparisonPrompt is comparison.cue decoded: the words of a head-to-head
// comparison of two or three systems' transcripts.
type ComparisonPrompt struct {
	Version     string   `json:"version"`
	Instruction string   `json:"instruction"`
	OrderNote   string   `json:"order_note"`
	Answer      string   `json:"answer"`
	Labels      []string `json:"labels"`
	Heading     string   `json:"heading"`
}

var comparison = sync.OnceValues(func() (ComparisonPrompt, error) {
	var c struct {
		Comparison ComparisonPrompt `json:"comparison"`
	}
	v := cuecontext.New().CompileBytes(comparisonCUE, cue.Filename("comparison.cue"))
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return c.Comparison, fmt.Errorf("decoding comparison prompt: %s", strings.TrimSpace(cueerrors.Details(err, nil)))
	}
	if err := v.Decode(&c); err != nil {
		return c.Comparison, fmt.Errorf("decoding comparison prompt: %s", strings.TrimSpace(cueerrors.Details(err, nil)))
	}
	if len(c.Comparison.Labels) < 3 {
		return c.Comparison, fmt.Errorf("decoding comparison prompt: %d labels, want at least 3", len(c.Comparison.Labels))
	}
	return c.Comparison, nil
})

// Comparison returns the embedded comparison prompt (comparison.cue). The
// file is part of the binary and checked by this package's tests, so an
// error is a build defect: Comparison panics on it.
func Comparison() ComparisonPrompt {
	c, err := comparison()
	if err != nil {
		panic(err)
	}
	return c
}

// quotedLabels is `"A", "B"` for n = 2.
func (c ComparisonPrompt) quotedLabels(n int) string {
	q := make([]string, n)
	for i, l := range c.Labels[:n] {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ", ")
}

// AnswerFor is the answer instruction for n responses.
func (c ComparisonPrompt) AnswerFor(n int) string {
	return strings.ReplaceAll(c.Answer, "{labels}", c.quotedLabels(n))
}

// HeadingFor is the heading of the i-th response shown.
func (c ComparisonPrompt) HeadingFor(i int) string {
	return strings.ReplaceAll(c.Heading, "{label}", c.Labels[i])
}

// Schema is the response_format json_schema of an answer about n
// responses: rationale first, a winner among the labels or "tie", and a
// ranking of the labels.
func (c ComparisonPrompt) Schema(n int) json.RawMessage {
	labels := c.Labels[:n]
	s, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"rationale", "winner", "ranking"},
		"additionalProperties": false, "properties": map[string]any{
			"rationale": map[string]any{"type": "string"},
			"winner":    map[string]any{"type": "string", "enum": append(append([]string{}, labels...), "tie")},
			"ranking":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": labels}},
		}})
	return s
}

// Verdict is a parsed comparison answer, in positions of the order shown.
type Verdict struct {
	Winner    int   // position of the winner; −1 for a tie
	Ranking   []int // positions, best first (labels the answer did not rank are left out)
	Rationale string
}

// ParseComparison reads a judge's answer about n responses shown under
// Labels[:n]. It accepts text around the JSON object, <think> blocks and
// code fences, labels written "B", "b", "Response B" or "**B**", and
// "tie" in any case. A missing object or a winner that is not a shown
// label or a tie is an error; ranking entries that are not labels are
// dropped, repeats kept once.
func (c ComparisonPrompt) ParseComparison(out string, n int) (Verdict, error) {
	v := Verdict{Winner: -1}
	js, ok := ExtractJSON(out)
	var ans struct {
		Winner    string   `json:"winner"`
		Ranking   []string `json:"ranking"`
		Rationale string   `json:"rationale"`
	}
	if !ok || json.Unmarshal([]byte(js), &ans) != nil {
		return v, fmt.Errorf("no comparison JSON in the judge output: %s", snippet(out))
	}
	v.Rationale = ans.Rationale
	if strings.EqualFold(strings.TrimSpace(ans.Winner), "tie") {
		v.Winner = -1
	} else if v.Winner = c.position(ans.Winner, n); v.Winner < 0 {
		return v, fmt.Errorf("winner %q is not one of %s or tie", ans.Winner, c.quotedLabels(n))
	}
	seen := map[int]bool{}
	for _, l := range ans.Ranking {
		if p := c.position(l, n); p >= 0 && !seen[p] {
			seen[p] = true
			v.Ranking = append(v.Ranking, p)
		}
	}
	return v, nil
}

var labelNoise = regexp.MustCompile(`(?i)^\W*(?:response\s+)?|\W*$`)

// position is the position of label among the n shown, or −1.
func (c ComparisonPrompt) position(label string, n int) int {
	l := labelNoise.ReplaceAllString(strings.TrimSpace(label), "")
	for i, x := range c.Labels[:n] {
		if strings.EqualFold(l, x) {
			return i
		}
	}
	return -1
}

var thinkRE = regexp.MustCompile(`(?s)<think>.*?</think>`)

// ExtractJSON finds the first balanced JSON object in a model output,
// tolerating <think> blocks, code fences and text before or after.
func ExtractJSON(out string) (string, bool) {
	s := thinkRE.ReplaceAllString(out, "")
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return "", false
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		ch := s[i]
		switch {
		case esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		case inStr:
		case ch == '{':
			depth++
		case ch == '}':
			depth--
			if depth == 0 {
				return s[start : i+1], true
			}
		}
	}
	return "", false
}

// snippet is the start of an output, for error messages.
func snippet(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}
