package pairs

import (
	"math/big"
	"testing"
)

func scored(id int64, score string) Scored {
	r, ok := new(big.Rat).SetString(score)
	if !ok {
		panic(score)
	}
	return Scored{ID: id, Score: r}
}

func TestSelectMarginAndCap(t *testing.T) {
	// Scores 4.5, 4.0, 3.2, 3.2: gaps 0.5, 1.3, 1.3, 0.8, 0.8, 0.
	c := []Scored{scored(1, "4.5"), scored(2, "4"), scored(3, "3.2"), scored(4, "3.2")}
	ids := func(ps []Pair) [][2]int64 {
		out := make([][2]int64, len(ps))
		for i, p := range ps {
			out[i] = [2]int64{p.Chosen.ID, p.Rejected.ID}
		}
		return out
	}
	got := ids(Select(c, exact(0.5), 0))
	want := [][2]int64{{1, 3}, {1, 4}, {2, 3}, {2, 4}, {1, 2}}
	if len(got) != len(want) {
		t.Fatalf("got %d pairs %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Select(c, exact(0.9), 0); len(got) != 2 {
		t.Errorf("margin 0.9: %d pairs, want 2 (the 1.3 gaps)", len(got))
	}
	if got := Select(c, exact(0), 0); len(got) != 5 {
		t.Errorf("margin 0: %d pairs, want 5 (the equal 3.2 scores never pair)", len(got))
	}
	if got := ids(Select(c, exact(0.5), 3)); len(got) != 3 || got[2] != want[2] {
		t.Errorf("cap 3: %v, want the 3 largest gaps", got)
	}
	k := []Scored{scored(1, "1"), scored(2, "2"), scored(3, "3"), scored(4, "4"), scored(5, "5")}
	if got := Select(k, exact(0), 0); len(got) != 10 {
		t.Errorf("K=5 distinct scores: %d pairs, want K(K-1)/2 = 10", len(got))
	}
	// 2.8 − 1.8 is exactly the margin 1 on the judge's scale (in float64
	// it is 0.9999999999999998): kept.
	if got := Select([]Scored{scored(1, "14/5"), scored(2, "9/5")}, exact(1.0), 0); len(got) != 1 {
		t.Errorf("gap equal to the margin: %d pairs, want 1", len(got))
	}
}

func TestExactReadsTheJudgeScale(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{4, "4"}, {3.4, "17/5"}, {0.5, "1/2"}, {0.1, "1/10"}, {1.0, "1"},
		{11.0 / 3, "11/3"}, {17.0 / 5, "17/5"}, {2.35, "47/20"},
	}
	for _, c := range cases {
		if got := exact(c.v).RatString(); got != c.want {
			t.Errorf("exact(%v) = %s, want %s", c.v, got, c.want)
		}
	}
	// A float that is no short fraction comes back as itself.
	v := 0.1 + 0.2
	if f, _ := exact(v).Float64(); f != v {
		t.Errorf("exact(%v) rounds back to %v", v, f)
	}
	m := newMeanOfMeans()
	for _, r := range []struct {
		crit string
		s    float64
	}{{"a", 4}, {"a", 5}, {"b", 3}, {"c", 3}, {"d", 3}, {"e", 2}} {
		m.add(r.crit, r.s)
	}
	// Criterion means 4.5, 3, 3, 3, 2: mean 15.5/5 = 3.1.
	if got := m.score().RatString(); got != "31/10" {
		t.Errorf("mean of means %s, want 31/10", got)
	}
}
