package cuda

import "sort"

// scatterPlan groups the indices by destination row, each group's source
// rows in increasing order: rows (distinct, sorted), starts (len(rows)+1
// offsets into srcs) and srcs.
func scatterPlan(ix []int32) (rows, starts, srcs []int32) {
	order := make([]int32, len(ix))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, c int) bool { return ix[order[a]] < ix[order[c]] })
	for k, i := range order {
		if k == 0 || ix[i] != ix[order[k-1]] {
			rows = append(rows, ix[i])
			starts = append(starts, int32(k))
		}
	}
	return rows, append(starts, int32(len(ix))), order
}
