package dialogue

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mascot.dev/mascot/results/jsonl"
)

// Errors the engine reports (wrapped) in strict mode and from ParseDirective.
var (
	ErrDirectiveParse = errors.New("directive has no agent")
	ErrUnknownAgent   = errors.New("directive names an agent outside the roster")
	ErrEmptyResponse  = errors.New("empty response")
	ErrSkippedSample  = errors.New("sample skipped")
)

var (
	thinkRE  = regexp.MustCompile(`(?is)<think>.*?</think>`)
	markerRE = regexp.MustCompile(`(?i)\b(agent(?:[ _]name)?|speaker|next speaker|action|instruction|tone)\s*[:：=]`)
)

// ParseDirective reads a Director output. It tries a JSON object first
// (keys agent, agent_name, speaker; action, instruction; tone, any case,
// possibly inside a code fence or prose), then a tolerant scan for
// Agent:/Action:/Tone: markers (markdown, bold, bullets, case, extra prose,
// one line or several). The returned directive's AgentName is the roster's
// spelling. Errors: ErrDirectiveParse when no agent value is found,
// ErrUnknownAgent (with the parsed fields still returned) when the agent is
// not in the roster.
func ParseDirective(raw string, roster Roster) (jsonl.Directive, error) {
	text := thinkRE.ReplaceAllString(raw, "")
	d, ok := parseJSONDirective(text)
	if !ok {
		d, ok = parseTextDirective(text)
	}
	if !ok || strings.TrimSpace(d.AgentName) == "" {
		return jsonl.Directive{}, ErrDirectiveParse
	}
	i := roster.Match(d.AgentName)
	if i < 0 {
		return d, fmt.Errorf("%w: %q", ErrUnknownAgent, d.AgentName)
	}
	d.AgentName = roster[i].Name
	return d, nil
}

// parseJSONDirective decodes the outermost {...} of text.
func parseJSONDirective(text string) (jsonl.Directive, bool) {
	start := strings.Index(text, "{")
	end := strings.LastIndex(text, "}")
	if start < 0 || end <= start {
		return jsonl.Directive{}, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text[start:end+1]), &m); err != nil {
		return jsonl.Directive{}, false
	}
	get := func(keys ...string) string {
		for k, v := range m {
			lk := strings.ToLower(strings.TrimSpace(k))
			for _, want := range keys {
				if lk == want {
					if s, ok := v.(string); ok {
						return strings.TrimSpace(s)
					}
				}
			}
		}
		return ""
	}
	d := jsonl.Directive{
		AgentName: get("agent", "agent_name", "agentname", "speaker", "next_speaker"),
		Action:    get("action", "instruction"),
		Tone:      get("tone"),
	}
	return d, d.AgentName != ""
}

// parseTextDirective scans for field markers; a value runs to the end of
// its line or to the next marker on the same line, and an empty value takes
// the next non-empty line.
func parseTextDirective(text string) (jsonl.Directive, bool) {
	clean := strings.NewReplacer("**", "", "__", "", "`", "", "###", "", "##", "").Replace(text)
	lines := strings.Split(clean, "\n")
	var d jsonl.Directive
	found := false
	for li, line := range lines {
		locs := markerRE.FindAllStringSubmatchIndex(line, -1)
		for j, loc := range locs {
			end := len(line)
			if j+1 < len(locs) {
				end = locs[j+1][0]
			}
			val := cleanValue(line[loc[1]:end])
			if val == "" && j+1 == len(locs) {
				val = nextNonEmpty(lines[li+1:])
			}
			key := strings.ToLower(line[loc[2]:loc[3]])
			switch {
			case strings.HasPrefix(key, "agent") || strings.Contains(key, "speaker"):
				if d.AgentName == "" {
					d.AgentName, found = val, val != ""
				}
			case key == "action" || key == "instruction":
				if d.Action == "" {
					d.Action = val
				}
			case key == "tone":
				if d.Tone == "" {
					d.Tone = val
				}
			}
		}
	}
	return d, found
}

// cleanValue trims separators, quotes and markdown left around a value.
func cleanValue(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ",;|")
	s = strings.Trim(s, " \t*_\"'[]<>")
	return strings.TrimSpace(s)
}

// nextNonEmpty returns the first non-empty line that is not itself a marker.
func nextNonEmpty(lines []string) string {
	for _, l := range lines {
		v := cleanValue(strings.TrimLeft(strings.TrimSpace(l), "-*>#0123456789. "))
		if v == "" {
			continue
		}
		if markerRE.MatchString(l) {
			return ""
		}
		return v
	}
	return ""
}
