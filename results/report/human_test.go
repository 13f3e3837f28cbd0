package report

import (
	"math"
	"testing"

	"mascot.dev/mascot/results"
)

// TestAgreement checks raw agreement and Cohen's kappa against a hand
// computation: p_o = 3/4, p_e = (2·1 + 1·2 + 1·1)/16 = 5/16,
// κ = (3/4 − 5/16)/(1 − 5/16) = 7/11; and κ is undefined (NaN) when both
// always choose the same single category.
func TestAgreement(t *testing.T) {
	a := agreement("overall", [][2]string{{"A", "A"}, {"A", "B"}, {"B", "B"}, {"tie", "tie"}})
	if a.N != 4 || a.Agree != 3 || a.Rate != 0.75 || math.Abs(a.Kappa-7.0/11) > 1e-12 {
		t.Errorf("got %+v, want n 4, agree 3, rate 0.75, kappa %v", a, 7.0/11)
	}
	if a := agreement("x", [][2]string{{"A", "A"}, {"A", "A"}}); !math.IsNaN(a.Kappa) || a.Rate != 1 {
		t.Errorf("all-same choices: %+v, want rate 1 and kappa NaN", a)
	}
}

// TestJudgeChoice: the highest score wins, equal highs tie, an unscored
// episode leaves the comparison without a judge choice.
func TestJudgeChoice(t *testing.T) {
	scores := map[int64]float64{1: 40, 2: 75, 3: 75}
	of := func(id int64, _ string) (float64, bool, error) { v, ok := scores[id]; return v, ok, nil }
	p := func(ids ...int64) results.HumanPreference {
		hp := results.HumanPreference{EpisodeIDs: ids}
		for _, id := range ids {
			hp.Systems = append(hp.Systems, string(rune('a'+id)))
		}
		return hp
	}
	for _, c := range []struct {
		ids  []int64
		want string
		ok   bool
	}{{[]int64{1, 2}, "c", true}, {[]int64{2, 3, 1}, results.Tie, true}, {[]int64{1, 9}, "", false}} {
		got, ok, err := judgeChoice(p(c.ids...), "fidelity", of)
		if err != nil || got != c.want || ok != c.ok {
			t.Errorf("episodes %v: %q %v %v, want %q %v", c.ids, got, ok, err, c.want, c.ok)
		}
	}
}
