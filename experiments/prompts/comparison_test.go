package prompts

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestComparisonPrompt: the embedded words decode, the answer format names
// the labels shown, and the schema allows exactly those labels and a tie.
func TestComparisonPrompt(t *testing.T) {
	c := Comparison()
	if c.Version != "paper_v1" || !slices.Equal(c.Labels[:3], []string{"A", "B", "C"}) {
		t.Fatalf("comparison prompt %+v", c)
	}
	if got := c.AnswerFor(3); !strings.Contains(got, `"A", "B", "C"`) || strings.Contains(got, "{labels}") {
		t.Errorf("answer for three: %s", got)
	}
	if got := c.HeadingFor(1); got != "## Response B" {
		t.Errorf("heading %q", got)
	}
	var s struct {
		Properties struct {
			Winner struct {
				Enum []string `json:"enum"`
			} `json:"winner"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(c.Schema(2), &s); err != nil || !slices.Equal(s.Properties.Winner.Enum, []string{"A", "B", "tie"}) {
		t.Errorf("schema for two: %s (%v)", c.Schema(2), err)
	}
}

// TestParseComparison reads the answers judges write, and refuses a winner
// that was not shown.
func TestParseComparison(t *testing.T) {
	c := Comparison()
	cases := []struct {
		out     string
		n       int
		winner  int
		ranking []int
		err     bool
	}{
		{`{"rationale": "warmer", "winner": "B", "ranking": ["B", "A", "C"]}`, 3, 1, []int{1, 0, 2}, false},
		{"<think>hmm {not json}</think>\n```json\n{\"rationale\": \"r\", \"winner\": \"Response C\", \"ranking\": [\"c\", \"**A**\", \"A\", \"Z\"]}\n```", 3, 2, []int{2, 0}, false},
		{`{"rationale": "equal", "winner": "Tie", "ranking": []}`, 2, -1, nil, false},
		{`{"rationale": "r", "winner": "C", "ranking": ["C"]}`, 2, 0, nil, true}, // C was not shown
		{`no verdict at all`, 3, 0, nil, true},
	}
	for i, tc := range cases {
		v, err := c.ParseComparison(tc.out, tc.n)
		if tc.err {
			if err == nil {
				t.Errorf("case %d: no error, verdict %+v", i, v)
			}
			continue
		}
		if err != nil || v.Winner != tc.winner || !slices.Equal(v.Ranking, tc.ranking) {
			t.Errorf("case %d: %+v, %v; want winner %d ranking %v", i, v, err, tc.winner, tc.ranking)
		}
	}
}
