package markers

import (
	"encoding/json"
	"fmt"
	"strings"

	"mascot.dev/mascot/plugins/spec"
)

// turnScores are one agent response's per-agent scores (directive is
// NaN-free: hasDirective says whether it applies) with their rationales.
type turnScores struct {
	persona, directive, nonRedundancy, wellFormed float64
	hasDirective                                  bool
	why                                           map[string]string
}

// scoreResponse scores response, spoken by agent with marker words
// markers, after the earlier turns' texts; d is the directive it answered
// (nil: unknown).
func (j *Judge) scoreResponse(agent, response string, markers []string, earlier []string, d *spec.Directive) turnScores {
	ws := words(response)
	ts := turnScores{persona: 1, directive: 1, nonRedundancy: 1, wellFormed: 1, hasDirective: d != nil,
		why: map[string]string{}}
	if len(ws) == 0 {
		for _, id := range []string{PersonaMarkers, DirectiveCompliance, NonRedundancy, WellFormed} {
			ts.why[id] = "empty response"
		}
		return ts
	}
	used := map[string]bool{}
	for _, w := range ws {
		used[w] = true
	}

	var hits []string
	for _, m := range markers {
		if used[m] {
			hits = append(hits, m)
		}
	}
	ts.persona = scale(float64(len(hits)) / float64(j.cfg.MarkerTarget))
	ts.why[PersonaMarkers] = fmt.Sprintf("%d of %d marker words of %s%s", len(hits), len(markers), agent, listed(hits))

	if d != nil {
		agentOK := strings.EqualFold(strings.TrimSpace(d.AgentName), strings.TrimSpace(agent))
		var want, got []string
		seen := map[string]bool{}
		for _, w := range words(d.Action + " " + d.Tone) {
			if content(w) && !seen[w] {
				seen[w] = true
				want = append(want, w)
				if used[w] {
					got = append(got, w)
				}
			}
		}
		share := 1.0
		if need := min(2, len(want)); need > 0 {
			share = min(1, float64(len(got))/float64(need))
		}
		half := 0.0
		if agentOK {
			half = 0.5
		}
		ts.directive = scale(half + share/2)
		ts.why[DirectiveCompliance] = fmt.Sprintf("directed agent %q spoke: %v; %d of %d directive words used%s",
			d.AgentName, agentOK, len(got), len(want), listed(got))
	}

	before := map[string]bool{}
	for _, t := range earlier {
		for _, w := range words(t) {
			before[w] = true
		}
	}
	var n, rep int
	for _, w := range ws {
		if !content(w) {
			continue
		}
		n++
		if before[w] {
			rep++
		}
		before[w] = true
	}
	share := 0.0
	if n > 0 {
		share = float64(rep) / float64(n)
	}
	ts.nonRedundancy = scale(1 - share)
	ts.why[NonRedundancy] = fmt.Sprintf("%d of %d content words repeat earlier ones", rep, n)

	frag := 0
	for _, w := range ws {
		if fragment(w) {
			frag++
		}
	}
	ts.wellFormed = scale(1 - float64(frag)/float64(len(ws)))
	ts.why[WellFormed] = fmt.Sprintf("%d of %d words are fragments", frag, len(ws))
	return ts
}

// listed renders ": a, b" for a non-empty list.
func listed(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return ": " + strings.Join(ws, ", ")
}

// markersOf returns agent's marker words: the configured ones, else
// those of its persona card.
func (j *Judge) markersOf(agent, card string) []string {
	if ws, ok := j.cfg.Markers[agent]; ok {
		return markerList(ws)
	}
	return markerWords(card)
}

// markerList lower-cases and splits configured marker words, each once.
func markerList(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words(joinWords(ws)) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// directiveOf decodes an item's MetaDirective (nil when absent).
func directiveOf(it spec.Item) (*spec.Directive, error) {
	raw, ok := it.Metadata[spec.MetaDirective]
	if !ok || raw == "" {
		return nil, nil
	}
	var d spec.Directive
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return nil, fmt.Errorf("reading metadata %q: %w", spec.MetaDirective, err)
	}
	return &d, nil
}
