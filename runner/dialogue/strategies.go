package dialogue

import "strings"

// ESConvStrategies are the 8 ESConv support strategies.
func ESConvStrategies() []string {
	return []string{"Question", "Restatement or Paraphrasing", "Reflection of Feelings", "Self-disclosure",
		"Affirmation and Reassurance", "Providing Suggestions", "Information", "Others"}
}

// strategyAliases maps normalised variants (as found in ESConv files and
// model outputs) to the canonical strategy.
var strategyAliases = map[string]string{
	"questions": "Question", "asking questions": "Question",
	"restatement": "Restatement or Paraphrasing", "paraphrasing": "Restatement or Paraphrasing",
	"reflection": "Reflection of Feelings", "reflection of feeling": "Reflection of Feelings",
	"self disclosure":          "Self-disclosure",
	"approval and reassurance": "Affirmation and Reassurance", "reassurance": "Affirmation and Reassurance",
	"affirmation": "Affirmation and Reassurance",
	"suggestions": "Providing Suggestions", "providing suggestion": "Providing Suggestions",
	"direct guidance":       "Providing Suggestions",
	"providing information": "Information", "other": "Others",
}

// NormalizeStrategy maps s to one of ESConvStrategies, or "" when it names
// none. Case, punctuation and known variants are tolerated, and a text that
// contains exactly one strategy name (e.g. model prose) maps to it.
func NormalizeStrategy(s string) string {
	k := strings.Join(strings.Fields(normWords(s)), " ")
	if k == "" {
		return ""
	}
	for _, c := range ESConvStrategies() {
		if strings.Join(strings.Fields(normWords(c)), " ") == k {
			return c
		}
	}
	if c, ok := strategyAliases[k]; ok {
		return c
	}
	found := ""
	padded := " " + k + " "
	for _, c := range ESConvStrategies() {
		n := strings.Join(strings.Fields(normWords(c)), " ")
		if strings.Contains(padded, " "+n+" ") {
			if found != "" && found != c {
				return ""
			}
			found = c
		}
	}
	return found
}
