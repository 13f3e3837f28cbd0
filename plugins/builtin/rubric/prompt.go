package rubric

import (
	"encoding/json"
	"fmt"
	"strings"

	"mascot.dev/mascot/plugins/spec"
)

// message is one chat message of a judge request.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// scorePrompt builds the messages that ask one judge to score item on
// criteria. Every criterion appears with its description and all anchors.
func scorePrompt(criteria []spec.Criterion, item spec.Item) []message {
	var b strings.Builder
	b.WriteString("You are an impartial expert evaluator of multi-agent companion conversations.\n")
	b.WriteString("Score the text below on each criterion with an integer from 1 (worst) to 5 (best), using the anchors.\n\n")
	writeCriteria(&b, criteria)
	b.WriteString("\nAnswer with one JSON object and nothing else. For each criterion id give an object with a short \"rationale\" (written first) and an integer \"score\":\n")
	b.WriteString(exampleJSON(criteria))
	return []message{{Role: "system", Content: b.String()}, {Role: "user", Content: itemText(item)}}
}

func writeCriteria(b *strings.Builder, criteria []spec.Criterion) {
	for _, c := range criteria {
		fmt.Fprintf(b, "Criterion %s (id: %s): %s\n", c.Name, c.ID, c.Description)
		for _, a := range c.Anchors {
			fmt.Fprintf(b, "  %d = %s\n", a.Score, a.Text)
		}
	}
}

func exampleJSON(criteria []spec.Criterion) string {
	parts := make([]string, len(criteria))
	for i, c := range criteria {
		parts[i] = fmt.Sprintf("  %q: {\"rationale\": \"...\", \"score\": 3}", c.ID)
	}
	return "{\n" + strings.Join(parts, ",\n") + "\n}\n"
}

// itemText renders what is judged: context and response for candidates and
// turns, the turns for episodes and blocks.
func itemText(item spec.Item) string {
	var b strings.Builder
	if item.Source != "" {
		fmt.Fprintf(&b, "## Source material\n%s\n\n", item.Source)
	}
	switch item.Kind {
	case spec.KindEpisode:
		b.WriteString("## Conversation to evaluate\n")
		writeTurns(&b, item.Turns)
	default:
		if len(item.Context) > 0 {
			b.WriteString("## Conversation so far\n")
			writeTurns(&b, item.Context)
			b.WriteString("\n")
		}
		if item.AgentName != "" {
			fmt.Fprintf(&b, "## Agent\n%s\n", item.AgentName)
		}
		if item.Persona != "" {
			fmt.Fprintf(&b, "## Persona card\n%s\n", item.Persona)
		}
		fmt.Fprintf(&b, "\n## Response to evaluate\n%s\n", item.Response)
	}
	return b.String()
}

func writeTurns(b *strings.Builder, turns []spec.Turn) {
	for _, t := range turns {
		who := t.Speaker
		if who == "" {
			who = t.Role
		}
		fmt.Fprintf(b, "[%s] %s\n", who, t.Text)
	}
}

// scoreSchema is the response_format json_schema for criteria.
func scoreSchema(criteria []spec.Criterion) json.RawMessage {
	props := map[string]any{}
	req := make([]string, 0, len(criteria))
	for _, c := range criteria {
		props[c.ID] = map[string]any{
			"type": "object",
			"properties": map[string]any{
				"rationale": map[string]any{"type": "string"},
				"score":     map[string]any{"type": "integer", "minimum": 1, "maximum": 5},
			},
			"required":             []string{"rationale", "score"},
			"additionalProperties": false,
		}
		req = append(req, c.ID)
	}
	s, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false})
	return s
}
