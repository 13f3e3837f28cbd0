package dialogue

import (
	"strings"
	"testing"
)

// normName's one pass gives the keys of the words-and-join definition.
func TestNormNameIsFieldsJoin(t *testing.T) {
	want := func(s string) string {
		f := strings.Fields(normWords(s))
		if len(f) > 1 && f[0] == "the" {
			f = f[1:]
		}
		return strings.Join(f, "")
	}
	for _, s := range []string{"", "The", "the", "The Coach", "  the   coach ", "THE-Wise_Mentor!", "theory",
		"The the", "Dr. Émile Zoë", "İstanbul Guide", "ǅemal", "the\u00a0coach", "x\xffy", "12 the", "the 12",
		"ΣΟΦΊΑ", "the\tthe\tthe"} {
		if got, w := normName(s), want(s); got != w {
			t.Errorf("normName(%q) = %q, want %q", s, got, w)
		}
	}
}
