package results

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// LatencyBucket is one bar of a role's request-latency histogram: Count
// requests took at most LE (and more than the previous bucket's bound).
type LatencyBucket struct {
	Role  string
	LE    time.Duration
	Count int64
}

// LatencyCounterNames are the per-role counters readers derive from the
// latency histograms (llm.<role>.<name>, milliseconds).
var LatencyCounterNames = []string{"latency_p50_ms", "latency_p95_ms"}

var latencyQuantiles = []float64{0.50, 0.95}

// IsLatencyCounter reports whether counter name is a latency percentile
// (derived from histograms, not summable).
func IsLatencyCounter(name string) bool {
	for _, n := range LatencyCounterNames {
		if strings.HasSuffix(name, "."+n) {
			return true
		}
	}
	return false
}

// AddCounters adds counters of stage stageKey to the unit's run, in the
// unit's transaction (summed with the group's, see sums).
func (t *Tx) AddCounters(stageKey string, counters map[string]int64) error {
	if t.unit.RunID == "" || len(counters) == 0 {
		return nil
	}
	if t.sums != nil {
		t.sums.addCounters(t.unit.RunID, stageKey, counters)
		return nil
	}
	var one sums
	one.addCounters(t.unit.RunID, stageKey, counters)
	return one.write(t.tx)
}

// AddLatency adds latency histogram buckets of stage stageKey to the
// unit's run, in the unit's transaction (summed with the group's).
func (t *Tx) AddLatency(stageKey string, hist []LatencyBucket) error {
	if t.unit.RunID == "" || len(hist) == 0 {
		return nil
	}
	if t.sums != nil {
		t.sums.addLatency(t.unit.RunID, stageKey, hist)
		return nil
	}
	var one sums
	one.addLatency(t.unit.RunID, stageKey, hist)
	return one.write(t.tx)
}

// latencyCounters returns the latency percentiles of a run's roles
// (llm.<role>.latency_p50_ms ...), per stage key, and over the whole run
// under the key "*".
func (s *Store) latencyCounters(ctx context.Context, runID string) (map[string]map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT stage_key, role, le_us, n FROM llm_latency WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading latencies of run %s: %w", runID, err)
	}
	defer rows.Close()
	type key struct{ stage, role string }
	hist := map[key]map[int64]int64{}
	add := func(k key, le, n int64) {
		if hist[k] == nil {
			hist[k] = map[int64]int64{}
		}
		hist[k][le] += n
	}
	for rows.Next() {
		var stage, role string
		var le, n int64
		if err := rows.Scan(&stage, &role, &le, &n); err != nil {
			return nil, fmt.Errorf("reading latencies of run %s: %w", runID, err)
		}
		add(key{stage, role}, le, n)
		add(key{"*", role}, le, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading latencies of run %s: %w", runID, err)
	}
	out := map[string]map[string]int64{}
	for k, h := range hist {
		if out[k.stage] == nil {
			out[k.stage] = map[string]int64{}
		}
		for i, q := range latencyQuantiles {
			out[k.stage]["llm."+k.role+"."+LatencyCounterNames[i]] = quantileMS(h, q)
		}
	}
	return out, nil
}

// quantileMS is the q-quantile of a histogram (bucket bound µs -> count),
// in whole milliseconds rounded up.
func quantileMS(h map[int64]int64, q float64) int64 {
	bounds := make([]int64, 0, len(h))
	var total int64
	for le, n := range h {
		bounds = append(bounds, le)
		total += n
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i] < bounds[j] })
	target := int64(math.Ceil(q * float64(total)))
	var acc int64
	for _, le := range bounds {
		acc += h[le]
		if acc >= target {
			return (le + 999) / 1000
		}
	}
	return 0
}

// ProducedCounterNames returns the names of the counters the runs that
// produced the given units recorded under the stage the units were
// produced in (each unit's producing link in run_units), sorted. A run
// that reuses those units records the same names, with its own values
// (zero for work it did not do), so a cached rerun's counters list what
// the first run's did.
func (s *Store) ProducedCounterNames(ctx context.Context, fingerprints []string) ([]string, error) {
	if len(fingerprints) == 0 {
		return nil, nil
	}
	arg, err := json.Marshal(fingerprints)
	if err != nil {
		return nil, fmt.Errorf("encoding fingerprints: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT c.name FROM counters c
		WHERE EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = c.run_id AND ru.stage_key = c.stage_key
			AND ru.cached = 0 AND ru.fingerprint IN (SELECT value FROM json_each(?)))
		ORDER BY c.name`, string(arg))
	if err != nil {
		return nil, fmt.Errorf("reading the counter names of reused units: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("reading the counter names of reused units: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
