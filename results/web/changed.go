package web

import (
	"math"
	"sort"

	"mascot.dev/mascot/results"
)

// changedEpisode is one conversation matched across two runs with the
// change of its mean judged score (0..100, over all judged criteria).
type changedEpisode struct {
	Key        string
	System     string
	A, B       int64 // episode ids
	ScoreA     float64
	ScoreB     float64
	Delta      float64 // ScoreA − ScoreB
	RunA, RunB string
}

// episodeMean is the mean judged score of one episode, being summed.
type episodeMean struct {
	sum float64
	n   int
	id  int64
}

// episodeMeans sums the judged scores per episode of a run's score groups
// (any split: each episode is in one group per level), by system and
// pairing key, in the groups' order (so each mean is bit for bit the same
// however the result is looked up).
func episodeMeans(groups []results.ScoreGroup) map[string]map[string]*episodeMean {
	out := map[string]map[string]*episodeMean{}
	for _, g := range groups {
		if g.Level == results.LevelMetric {
			continue
		}
		bySys := out[g.System]
		if bySys == nil {
			bySys = make(map[string]*episodeMean, len(g.Keys))
			out[g.System] = bySys
		}
		for i, key := range g.Keys {
			m := bySys[key]
			if m == nil {
				m = &episodeMean{}
				bySys[key] = m
			}
			m.id = g.Episodes[i]
			for c := range g.Criteria {
				if v := g.Values[c][i]; !math.IsNaN(v) {
					m.sum += v
					m.n++
				}
			}
		}
	}
	return out
}

// mostChangedOf pairs the evaluation episodes of runs a and b, given
// their score groups, like report.Compare (system + conv_id + sample when
// the runs share a system, else conv_id + sample) and returns the top n by
// absolute change. Episodes without a judged score are left out.
func mostChangedOf(a, b string, ga, gb []results.ScoreGroup, n int) []changedEpisode {
	ma, mb := episodeMeans(ga), episodeMeans(gb)
	shared := false
	for s := range ma {
		_, ok := mb[s]
		shared = shared || ok
	}
	// The top n, best first, kept as the pairs arrive: sorting every
	// matched episode (100,000 at paper scale) to keep ten took most of
	// this function's time. The order is total, so the ten are those a
	// full sort gives.
	var out []changedEpisode
	add := func(sys, key string, ea, eb *episodeMean) {
		if ea.n == 0 || eb.n == 0 || n <= 0 {
			return
		}
		sa, sb := ea.sum/float64(ea.n), eb.sum/float64(eb.n)
		c := changedEpisode{Key: key, System: sys, A: ea.id, B: eb.id, ScoreA: sa, ScoreB: sb,
			Delta: sa - sb, RunA: a, RunB: b}
		if n > keptTop {
			out = append(out, c) // sorted at the end
			return
		}
		if len(out) == n && !changedBefore(&c, &out[n-1]) {
			return
		}
		i := sort.Search(len(out), func(i int) bool { return changedBefore(&c, &out[i]) })
		if len(out) < n {
			out = append(out, changedEpisode{})
		}
		copy(out[i+1:], out[i:len(out)-1])
		out[i] = c
	}
	for sysA, eps := range ma {
		for key, ea := range eps {
			if shared {
				if eb := mb[sysA][key]; eb != nil {
					add(sysA, key, ea, eb)
				}
				continue
			}
			// One system per run (Compare refuses several): pair across them.
			for sysB, other := range mb {
				if eb := other[key]; eb != nil {
					add(sysA+" − "+sysB, key, ea, eb)
				}
			}
		}
	}
	if n > keptTop {
		sort.Slice(out, func(i, j int) bool { return changedBefore(&out[i], &out[j]) })
		out = out[:min(n, len(out))]
	}
	return out
}

// keptTop is the largest n whose top mostChangedOf keeps as the pairs
// arrive; a larger one sorts them all.
const keptTop = 64

// changedBefore orders changed episodes: larger absolute change first,
// then by key, system and A's episode id.
func changedBefore(x, y *changedEpisode) bool {
	dx, dy := math.Abs(x.Delta), math.Abs(y.Delta)
	switch {
	case dx != dy:
		return dx > dy
	case x.Key != y.Key:
		return x.Key < y.Key
	case x.System != y.System:
		return x.System < y.System
	}
	return x.A < y.A
}
