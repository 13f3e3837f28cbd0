package report

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"strconv"

	"mascot.dev/mascot/results"
)

// Cached returns the result stored under key for runIDs (see
// results.Store.CachedResult: the key must name every run the result
// reads, runIDs[0] first, and everything else it depends on), or computes,
// stores and returns it. Results are gob-encoded, so floats (NaN
// included) come back bit for bit. A result the cache cannot keep (a
// read-only database, say) is computed and served all the same, with a
// warning in the log.
func Cached[T any](ctx context.Context, st *results.Store, key string, runIDs []string, compute func() (T, error)) (T, error) {
	return cached(ctx, st, key, runIDs, compute, true)
}

// cached is Cached, storing a result it computes only when store: a step
// of a result that its caller stores itself (a comparison's score groups)
// is read when stored but not written, since writing it costs more than
// computing it again from the report blocks (docs/benchmarks.md).
func cached[T any](ctx context.Context, st *results.Store, key string, runIDs []string, compute func() (T, error), store bool) (T, error) {
	body, stamps, err := st.CachedResult(ctx, key, runIDs)
	if err != nil {
		slog.Warn("report cache unavailable; computing without it", "key", key, "err", err)
		return compute()
	}
	if body != nil {
		var v T
		derr := gob.NewDecoder(bytes.NewReader(body)).Decode(&v)
		if derr == nil {
			return v, nil
		}
		slog.Warn("report cache entry unreadable; computing it again", "key", key, "err", derr)
	}
	v, err := compute()
	if err != nil || !store {
		return v, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return v, fmt.Errorf("encoding result %q for the report cache: %w", key, err)
	}
	if err := st.StoreResult(ctx, key, runIDs, stamps, buf.Bytes()); err != nil {
		slog.Warn("report cache: result not stored", "key", key, "err", err)
	}
	return v, nil
}

// CacheKey names, for Cached, a result of kind computed with opts over
// runs (opts.Units aside: results scoped to units are not cached). The
// kind carries a format number, to bump when the result's type or its
// computation changes.
func CacheKey(kind string, opts Options, runIDs ...string) string {
	opts = opts.withDefaults()
	return fmt.Sprintf("%s runs=%q split=%q resamples=%d seed=%d confidence=%s all=%t training=%t",
		kind, runIDs, opts.SplitBy, opts.Resamples, opts.Seed,
		strconv.FormatFloat(opts.Confidence, 'g', -1, 64), opts.All, opts.IncludeTraining)
}

// Warm computes and stores a run's report tables (and score groups) with
// the default options, those of `mascot report RUN` and of the viewer's
// report page, so that their first request is served from the cache. The
// runner calls it when a run ends.
func Warm(ctx context.Context, st *results.Store, runID string) error {
	if _, err := runTables(ctx, st, runID, Options{}.withDefaults()); err != nil {
		return fmt.Errorf("warming the report cache of run %s: %w", runID, err)
	}
	return nil
}
