package host

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// perEntryOverhead covers the field tag and length prefix of one repeated
// entry in a request.
const perEntryOverhead = 16

func protoSize(m proto.Message) int { return proto.Size(m) + perEntryOverhead }

// splitBatches groups indexes of xs into batches whose summed sizes stay
// under limit, in order. Entries that alone exceed the limit are returned
// separately and put in no batch.
func splitBatches[T any](xs []T, limit int, size func(T) int) (batches [][]int, tooBig []int) {
	var cur []int
	total := 0
	for i, x := range xs {
		n := size(x)
		if n > limit {
			tooBig = append(tooBig, i)
			continue
		}
		if total+n > limit && len(cur) > 0 {
			batches = append(batches, cur)
			cur, total = nil, 0
		}
		cur = append(cur, i)
		total += n
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return batches, tooBig
}

func uniqueIDs[T any](xs []T, id func(T) string) error {
	seen := make(map[string]bool, len(xs))
	for _, x := range xs {
		k := id(x)
		if k == "" {
			return fmt.Errorf("an entry has an empty id")
		}
		if seen[k] {
			return fmt.Errorf("id %q appears twice in one batch", k)
		}
		seen[k] = true
	}
	return nil
}
