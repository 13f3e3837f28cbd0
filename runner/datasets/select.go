package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"strings"
)

// Select keeps the samples that pass the filters and then, when limit > 0
// and fewer than all remain wanted, a seeded subset of limit samples. The
// subset ranks samples by SHA-256 of (seed, sample ID), so it depends only
// on the seed and the IDs: the same seed picks the same samples on any
// machine, a larger limit keeps every sample a smaller one picked, and
// the result stays in dataset order. Filter values are assumed valid
// (Load checks them).
func Select(samples []Sample, f Filters, limit int, seed int64) []Sample {
	var kept []Sample
	for _, s := range samples {
		if matches(f.Valence, s.Valence) && matches(f.Domain, s.Domain) && matches(f.Emotion, s.Emotion) {
			kept = append(kept, s)
		}
	}
	if limit <= 0 || limit >= len(kept) {
		return kept
	}
	type ranked struct {
		key uint64
		idx int
	}
	r := make([]ranked, len(kept))
	for i, s := range kept {
		r[i] = ranked{sampleKey(seed, s.ID), i}
	}
	sort.Slice(r, func(i, j int) bool {
		if r[i].key != r[j].key {
			return r[i].key < r[j].key
		}
		return r[i].idx < r[j].idx
	})
	idx := make([]int, limit)
	for i := range idx {
		idx[i] = r[i].idx
	}
	sort.Ints(idx)
	out := make([]Sample, limit)
	for i, k := range idx {
		out[i] = kept[k]
	}
	return out
}

func sampleKey(seed int64, id string) uint64 {
	b := binary.LittleEndian.AppendUint64(nil, uint64(seed))
	sum := sha256.Sum256(append(b, id...))
	return binary.BigEndian.Uint64(sum[:8])
}

func matches(want []string, got string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if strings.EqualFold(strings.TrimSpace(w), got) {
			return true
		}
	}
	return false
}
