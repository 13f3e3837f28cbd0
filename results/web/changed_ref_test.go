package web

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"mascot.dev/mascot/results"
)

// TestMostChangedEqualsMapReference checks mostChangedOf against the former
// implementation, every pair and its means bit for bit, on random groups
// (two levels and metrics, missing values, episodes only one run has),
// with shared systems and with one different system per run.
func TestMostChangedEqualsMapReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	groups := func(systems []string, skip int) []results.ScoreGroup {
		var gs []results.ScoreGroup
		for _, lv := range []string{results.LevelAgent, results.LevelCollective, results.LevelMetric} {
			for _, sys := range systems {
				for _, split := range []string{"positive", "negative"} {
					g := results.ScoreGroup{Level: lv, System: sys, Split: split, Criteria: []string{"x", "y", "z"}}
					g.Values = make([][]float64, 3)
					for i := range 300 {
						if i%skip == 0 {
							continue
						}
						g.Episodes = append(g.Episodes, int64(len(gs)*1000+i))
						g.Keys = append(g.Keys, fmt.Sprintf("%s-c%d#0", split, i))
						for c := range g.Values {
							v := rng.Float64() * 100
							if rng.IntN(4) == 0 {
								v = math.NaN()
							}
							g.Values[c] = append(g.Values[c], v)
						}
					}
					gs = append(gs, g)
				}
			}
		}
		return gs
	}
	for _, c := range []struct {
		name   string
		sa, sb []string
	}{{"shared", []string{"s1", "s2"}, []string{"s2", "s1", "s3"}}, {"one each", []string{"s1"}, []string{"s2"}}} {
		ga, gb := groups(c.sa, 7), groups(c.sb, 5)
		got, want := mostChangedOf("a", "b", ga, gb, 1<<20), mostChangedRef("a", "b", ga, gb, 1<<20)
		if len(want) < 100 {
			t.Fatalf("%s: the fixture pairs only %d episodes", c.name, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %d pairs, the reference %d; first %+v, reference %+v", c.name, len(got), len(want), got[0], want[0])
		}
		// The top n kept as pairs arrive are the reference's first n.
		for _, n := range []int{1, 10, 64, len(want) + 3} {
			top := mostChangedOf("a", "b", ga, gb, n)
			if !reflect.DeepEqual(top, want[:min(n, len(want))]) {
				t.Fatalf("%s: top %d differ from the reference's first %d", c.name, n, n)
			}
		}
	}
}

// episodeMeansRef is the former episodeMeans (three maps keyed by system + "|" + key): the mean judged score per episode of a run's score
// groups (any split: each episode is in one group per level), keyed by
// system + "|" + pairing key, with the episode id.
func episodeMeansRef(groups []results.ScoreGroup) (map[string]float64, map[string]int64, map[string]bool) {
	sum, n := map[string]float64{}, map[string]int{}
	ids, systems := map[string]int64{}, map[string]bool{}
	for _, g := range groups {
		if g.Level == results.LevelMetric {
			continue
		}
		systems[g.System] = true
		for i, key := range g.Keys {
			k := g.System + "|" + key
			ids[k] = g.Episodes[i]
			for c := range g.Criteria {
				if v := g.Values[c][i]; !math.IsNaN(v) {
					sum[k] += v
					n[k]++
				}
			}
		}
	}
	out := make(map[string]float64, len(sum))
	for k, s := range sum {
		out[k] = s / float64(n[k])
	}
	return out, ids, systems
}

// mostChangedRef is the former mostChangedOf, the reference: it pairs the evaluation episodes of runs a and b, given
// their score groups, like report.Compare (system + conv_id + sample when
// the runs share a system, else conv_id + sample) and returns the top n by
// absolute change.
func mostChangedRef(a, b string, ga, gb []results.ScoreGroup, n int) []changedEpisode {
	ma, ida, sa := episodeMeansRef(ga)
	mb, idb, sb := episodeMeansRef(gb)
	shared := false
	for s := range sa {
		shared = shared || sb[s]
	}
	strip := func(k string) (sys, key string) {
		for i := 0; i < len(k); i++ {
			if k[i] == '|' {
				return k[:i], k[i+1:]
			}
		}
		return "", k
	}
	index := func(m map[string]float64) map[string]string {
		out := make(map[string]string, len(m))
		for k := range m {
			sys, key := strip(k)
			if shared {
				out[sys+"|"+key] = k
			} else {
				out[key] = k
			}
		}
		return out
	}
	xa, xb := index(ma), index(mb)
	var out []changedEpisode
	for pk, ka := range xa {
		kb, ok := xb[pk]
		if !ok {
			continue
		}
		sys, key := strip(ka)
		if !shared {
			sysB, _ := strip(kb)
			sys = sys + " − " + sysB
		}
		out = append(out, changedEpisode{Key: key, System: sys, A: ida[ka], B: idb[kb], ScoreA: ma[ka], ScoreB: mb[kb],
			Delta: ma[ka] - mb[kb], RunA: a, RunB: b})
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := math.Abs(out[i].Delta), math.Abs(out[j].Delta)
		switch {
		case di != dj:
			return di > dj
		case out[i].Key != out[j].Key:
			return out[i].Key < out[j].Key
		case out[i].System != out[j].System:
			return out[i].System < out[j].System
		}
		return out[i].A < out[j].A
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
