package results

import (
	"context"
	"fmt"
)

// MaxRowIDs returns the highest row id of every result table whose rows
// are identified by their integer id (Ingest's tables but llm_calls, which
// is keyed by its cache key): a detached run records it so that ingesting
// its jobs' shards can check the controller's database still numbers rows
// as the jobs did.
func (s *Store) MaxRowIDs(ctx context.Context) (map[string]int64, error) {
	w := map[string]int64{}
	for _, t := range ingestOrder {
		if t.upsert != "" {
			continue
		}
		var n int64
		if err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(rowid), 0) FROM `+t.name).Scan(&n); err != nil {
			return nil, fmt.Errorf("reading the highest id of %s: %w", t.name, err)
		}
		w[t.name] = n
	}
	return w, nil
}
