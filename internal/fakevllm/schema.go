package fakevllm

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// genCtx carries the draws used to fill a JSON schema.
type genCtx struct {
	r                   *rand.Rand
	agent, action, tone string
	p                   *prompt
	i                   int
}

var (
	emotions   = []string{"sadness", "anxiety", "anger", "fear", "shame", "depression", "disgust", "joy", "neutral"}
	strategies = []string{"Question", "Restatement or Paraphrasing", "Reflection of feelings", "Self-disclosure",
		"Affirmation and Reassurance", "Providing Suggestions", "Information", "Others"}
)

// valueFor builds a value that satisfies the common parts of a JSON schema:
// type, enum, const, required/properties, items, minimum/maximum,
// minItems. Property names steer strings (agent, action, tone, emotion,
// strategy, reason...).
func valueFor(s map[string]any, name string, g *genCtx, depth int) any {
	if c, ok := s["const"]; ok {
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		if isAgentKey(name) && g.agent != "" {
			for _, e := range enum {
				if fmt.Sprint(e) == g.agent {
					return e
				}
			}
		}
		return enum[g.r.IntN(len(enum))]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if m, ok := alts[0].(map[string]any); ok {
				return valueFor(m, name, g, depth+1)
			}
		}
	}
	typ := s["type"]
	if ts, ok := typ.([]any); ok && len(ts) > 0 {
		typ = ts[0]
	}
	if typ == nil {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "object":
		return objectFor(s, g, depth)
	case "array":
		n := 1 + g.r.IntN(3)
		if mi, ok := num(s["minItems"]); ok && int(mi) > n {
			n = int(mi)
		}
		if ma, ok := num(s["maxItems"]); ok && int(ma) < n {
			n = int(ma)
		}
		items, _ := s["items"].(map[string]any)
		out := make([]any, n)
		for k := range out {
			out[k] = valueFor(items, name, g, depth+1)
		}
		return out
	case "integer", "number":
		lo, hi := 1.0, 5.0
		if v, ok := num(s["minimum"]); ok {
			lo = v
			if _, ok := num(s["maximum"]); !ok {
				hi = lo + 4
			}
		}
		if v, ok := num(s["maximum"]); ok {
			hi = v
		}
		if typ == "integer" {
			return int(lo) + g.r.IntN(int(hi-lo)+1)
		}
		return lo + g.r.Float64()*(hi-lo)
	case "boolean":
		return g.r.IntN(2) == 1
	case "null":
		return nil
	}
	return stringFor(name, g)
}

func objectFor(s map[string]any, g *genCtx, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if depth > 6 {
			break
		}
		m, _ := props[k].(map[string]any)
		out[k] = valueFor(m, k, g, depth+1)
	}
	if req, ok := s["required"].([]any); ok {
		for _, k := range req {
			key := fmt.Sprint(k)
			if _, ok := out[key]; !ok {
				out[key] = stringFor(key, g)
			}
		}
	}
	return out
}

func stringFor(name string, g *genCtx) string {
	n := strings.ToLower(name)
	switch {
	case isAgentKey(n):
		if g.agent != "" {
			return g.agent
		}
		if g.p.persona != "" {
			return g.p.persona
		}
		return "Agent"
	case n == "action" || strings.HasSuffix(n, "_action"):
		return g.action
	case n == "tone":
		return g.tone
	case strings.Contains(n, "emotion"):
		return emotions[g.r.IntN(len(emotions))]
	case strings.Contains(n, "strategy"):
		return strategies[g.r.IntN(len(strategies))]
	}
	return g.p.sentence(g.i*31 + g.r.IntN(1000))
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}
