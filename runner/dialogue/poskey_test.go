package dialogue

import (
	"strconv"
	"strings"
	"testing"
)

// Cache keys are stored: the one-allocation builder writes the keys the
// joined form wrote.
func TestPosKeyFormat(t *testing.T) {
	for _, p := range []Pos{{}, {Step: "candidate", Sample: 3}, {Step: "director", Round: 12, Branch: "0.1.2", Sample: 123456},
		{Step: "user", Round: -1, Branch: "x|y"}} {
		for _, unit := range []string{"", "abc123/ctx/candidates/Coach"} {
			want := strings.Join([]string{unit, RoleSpeaker, p.Step, "r" + strconv.Itoa(p.Round), "b" + p.Branch,
				"s" + strconv.Itoa(p.Sample)}, "|")
			if got := p.key(unit, RoleSpeaker); got != want {
				t.Errorf("%+v.key(%q) = %q, want %q", p, unit, got, want)
			}
		}
	}
}
