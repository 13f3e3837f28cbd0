package llm

import "strings"

// StripThink removes <think>…</think> blocks from s. A closing tag without an
// opening one (chat templates that open the block in the prompt) drops
// everything before it; an unclosed opening tag drops the rest. Leading and
// trailing space left behind is trimmed.
func StripThink(s string) string {
	const open, closeTag = "<think>", "</think>"
	if !strings.Contains(s, "think>") {
		return s
	}
	if i, j := strings.Index(s, closeTag), strings.Index(s, open); i >= 0 && (j < 0 || i < j) {
		s = s[i+len(closeTag):]
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(open):]
		j := strings.Index(rest, closeTag)
		if j < 0 {
			break
		}
		s = rest[j+len(closeTag):]
	}
	return strings.TrimSpace(b.String())
}
