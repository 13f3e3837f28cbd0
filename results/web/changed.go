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

// episodeMeans is the mean judged score per episode of a run's score
// groups (any split: each episode is in one group per level), keyed by
// system + "|" + pairing key, with the episode id.
func episodeMeans(groups []results.ScoreGroup) (map[string]float64, map[string]int64, map[string]bool) {
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

// mostChangedOf pairs the evaluation episodes of runs a and b, given
// their score groups, like report.Compare (system + conv_id + sample when
// the runs share a system, else conv_id + sample) and returns the top n by
// absolute change.
func mostChangedOf(a, b string, ga, gb []results.ScoreGroup, n int) []changedEpisode {
	ma, ida, sa := episodeMeans(ga)
	mb, idb, sb := episodeMeans(gb)
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
