package rubric

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/plugins/spec"
)

// extractJSON finds the first balanced JSON object in a model output
// (prompts.ExtractJSON: <think> blocks, code fences and text around it
// are tolerated).
func extractJSON(out string) (string, bool) { return prompts.ExtractJSON(out) }

// parsed is one criterion's score and rationale from a judge output.
type parsed struct {
	raw       float64
	rationale string
}

// parseScores reads the scores for criteria out of a judge model's output.
// It accepts {"id": {"score", "rationale"}}, {"scores": {...}}, plain
// numbers, numbers as strings ("4", "4/5"), and keys given by criterion name
// instead of id. A missing criterion, an unreadable value or a score off
// 1..5 is an error.
func parseScores(out string, criteria []spec.Criterion) (map[string]parsed, error) {
	js, ok := extractJSON(out)
	if !ok {
		return nil, fmt.Errorf("no JSON object in the judge output")
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(js), &obj); err != nil {
		return nil, fmt.Errorf("judge output is not valid JSON: %v", err)
	}
	if inner, ok := obj["scores"].(map[string]any); ok {
		obj = inner
	}
	keys := map[string]any{}
	for k, v := range obj {
		keys[normKey(k)] = v
	}
	res := map[string]parsed{}
	for _, c := range criteria {
		v, ok := keys[normKey(c.ID)]
		if !ok {
			v, ok = keys[normKey(c.Name)]
		}
		if !ok {
			return nil, fmt.Errorf("no score for criterion %s", c.ID)
		}
		p, err := readValue(v)
		if err != nil {
			return nil, fmt.Errorf("criterion %s: %v", c.ID, err)
		}
		if math.IsNaN(p.raw) || p.raw < 1 || p.raw > 5 {
			return nil, fmt.Errorf("criterion %s: score %g is outside 1..5", c.ID, p.raw)
		}
		res[c.ID] = p
	}
	return res, nil
}

func normKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func readValue(v any) (parsed, error) {
	switch x := v.(type) {
	case float64:
		return parsed{raw: x}, nil
	case string:
		f, err := number(x)
		return parsed{raw: f}, err
	case map[string]any:
		var p parsed
		if r, ok := x["rationale"].(string); ok {
			p.rationale = r
		}
		s, ok := x["score"]
		if !ok {
			return p, fmt.Errorf("object without a score")
		}
		q, err := readValue(s)
		p.raw = q.raw
		return p, err
	}
	return parsed{}, fmt.Errorf("unreadable score %v", v)
}

var numRE = regexp.MustCompile(`^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*5)?\s*$`)

func number(s string) (float64, error) {
	m := numRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("score %q is not a number", s)
	}
	return strconv.ParseFloat(m[1], 64)
}
