package dialogue

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Agent is one persona card. PromptTemplate, when set, replaces the Speaker
// system template for this agent (same template data as Templates).
type Agent struct {
	Name           string   `json:"name"`
	Role           string   `json:"role"`
	Description    string   `json:"description"`
	Style          string   `json:"style"`
	Goals          []string `json:"goals"`
	PromptTemplate string   `json:"prompt_template,omitempty"`
}

// Roster is the ordered set of agents a Director chooses from.
type Roster []Agent

// Names returns the agent names in roster order.
func (r Roster) Names() []string {
	out := make([]string, len(r))
	for i, a := range r {
		out[i] = a.Name
	}
	return out
}

// Validate reports an empty roster, empty names and duplicate names
// (after the same normalisation the directive parser uses).
func (r Roster) Validate() error {
	if len(r) == 0 {
		return errors.New("roster has no agents")
	}
	seen := map[string]string{}
	for i, a := range r {
		k := normName(a.Name)
		if k == "" {
			return fmt.Errorf("roster agent %d has no name", i)
		}
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("roster agents %q and %q have the same name", prev, a.Name)
		}
		seen[k] = a.Name
	}
	return nil
}

// Find returns the index of the agent named name, after normalisation
// (case, a leading "the", punctuation), or -1.
func (r Roster) Find(name string) int {
	k := normName(name)
	if k == "" {
		return -1
	}
	for i, a := range r {
		if normName(a.Name) == k {
			return i
		}
	}
	return -1
}

// Match resolves a free-text agent value: an exact normalised match, else
// the single roster agent whose normalised name occurs as a word sequence in
// the value. It returns -1 when none or several agents match.
func (r Roster) Match(value string) int {
	if i := r.Find(value); i >= 0 {
		return i
	}
	words := " " + strings.Join(strings.Fields(normWords(value)), " ") + " "
	found := -1
	for i, a := range r {
		n := strings.Join(strings.Fields(normWords(a.Name)), " ")
		n = strings.TrimPrefix(n, "the ")
		if n != "" && strings.Contains(words, " "+n+" ") {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// normWords lower-cases s and turns every non letter/digit into a space.
func normWords(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return ' '
	}, s)
}

// normName is the comparison key of an agent name: its words (runs of
// letters and digits) lowercased and joined, without a leading "the"
// when more follow. Every unit validates its roster and finds its agent
// by it, so it is one pass and one allocation.
func normName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	words, first := 0, 0 // first: where the first word ends in b
	inWord := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !inWord {
				words++
			}
			inWord = true
			b.WriteRune(unicode.ToLower(r))
			if words == 1 {
				first = b.Len()
			}
			continue
		}
		inWord = false
	}
	out := b.String()
	if words > 1 && out[:first] == "the" {
		return out[first:]
	}
	return out
}
