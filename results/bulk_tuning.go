package results

import (
	"context"
	"errors"
	"fmt"
)

// bulkPragmas are the writer connection's settings during a bulk load
// (an import writes one transaction of some 600,000 rows): a page cache that
// holds the indexes' working set (so pages are not spilled to the WAL and
// read back mid-transaction). Statement journals are in memory for every
// write (Open sets temp_store; with a temporary file they were half the
// import's system time).
var bulkPragmas = []struct{ name, value, fresh string }{
	{"cache_size", "-524288", "-8192"}, // KiB: 512 MiB; 8 MiB for a Fresh database (fresh.go)
}

// TuneForBulk applies bulkPragmas to the writer connection (the store has
// one) outside any transaction, for a unit of many rows (Tx.BulkEpisodes);
// restore sets the former values back.
func (s *Store) TuneForBulk(ctx context.Context) (restore func() error, err error) {
	prev := make([]string, 0, len(bulkPragmas))
	restore = func() error {
		var errs []error
		for i, v := range prev {
			q := fmt.Sprintf(`PRAGMA %s = %s`, bulkPragmas[i].name, v)
			if _, err := s.w.ExecContext(context.WithoutCancel(ctx), q); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s: %w", bulkPragmas[i].name, err))
			}
		}
		return errors.Join(errs...)
	}
	for _, p := range bulkPragmas {
		var v string
		if err := s.w.QueryRowContext(ctx, `PRAGMA `+p.name).Scan(&v); err != nil {
			return nil, errors.Join(fmt.Errorf("reading %s: %w", p.name, err), restore())
		}
		value := p.value
		if s.fresh {
			value = p.fresh
		}
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA %s = %s`, p.name, value)); err != nil {
			return nil, errors.Join(fmt.Errorf("setting %s: %w", p.name, err), restore())
		}
		prev = append(prev, v)
	}
	return restore, nil
}
