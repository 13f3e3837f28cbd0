package report

import (
	"cmp"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"mascot.dev/mascot/results"
)

// Reports are a function of the rows a database holds, not of the order it
// stores them in: two databases with the same rows give byte-identical
// reports. Episode ids follow insertion order, so neither the order of a
// group's episodes (which fixes the bootstrap's draws and the order of
// every floating-point sum) nor the bootstrap's stream may come from them.
// canonical orders a group by its episodes' pair keys (conv_id#sample),
// ties broken by the values themselves (episodes with the same key and the
// same values are interchangeable), and drawStream seeds each group's
// bootstrap from those keys.

// canonical returns g with its episodes in canonical order. g is not
// modified; the result shares nothing with it.
func canonical(g results.ScoreGroup) results.ScoreGroup {
	n := len(g.Episodes)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) string {
		if i < len(g.Keys) {
			return g.Keys[i]
		}
		return ""
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := strings.Compare(key(a), key(b)); c != 0 {
			return c
		}
		for _, col := range g.Values {
			if c := cmpValue(col[a], col[b]); c != 0 {
				return c
			}
		}
		return 0
	})
	out := g
	out.Episodes = make([]int64, n)
	out.Keys = make([]string, n)
	for i, j := range idx {
		out.Episodes[i], out.Keys[i] = g.Episodes[j], key(j)
	}
	out.Values = make([][]float64, len(g.Values))
	for c, col := range g.Values {
		nc := make([]float64, n)
		for i, j := range idx {
			nc[i] = col[j]
		}
		out.Values[c] = nc
	}
	out.Criteria = slices.Clone(g.Criteria)
	return out
}

// cmpValue orders float64s totally: NaN (missing) first, then by value.
func cmpValue(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return cmp.Compare(a, b)
}

// drawStream is the second word of a group's bootstrap PCG: a hash of its
// episodes' keys in canonical order. Groups holding the same episodes
// (the levels of one system × split) get the same stream, so they can
// share one pass of draws (shareDraws); other groups draw independently.
func drawStream(keys []string) uint64 {
	h := fnv.New64a()
	for _, k := range keys {
		_, _ = h.Write([]byte(k))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}
