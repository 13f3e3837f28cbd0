package results

import (
	"database/sql"
	"encoding/json"
	"fmt"
)

// sums are counters and latency buckets added by the units of one group
// transaction, written with one statement per table when the group
// commits (instead of one per unit): the same rows, in the same
// transaction.
type sums struct {
	counters map[counterKey]int64
	latency  map[latencyKey]int64
}

type counterKey struct{ run, stage, name string }

type latencyKey struct {
	run, stage, role string
	le               int64 // µs
}

func (s *sums) reset() {
	clear(s.counters)
	clear(s.latency)
}

func (s *sums) addCounters(run, stage string, counters map[string]int64) {
	if s.counters == nil {
		s.counters = make(map[counterKey]int64, len(counters))
	}
	for name, v := range counters {
		s.counters[counterKey{run, stage, name}] += v // zeros too: the counter then exists
	}
}

func (s *sums) addLatency(run, stage string, hist []LatencyBucket) {
	if s.latency == nil {
		s.latency = make(map[latencyKey]int64, len(hist))
	}
	for _, b := range hist {
		s.latency[latencyKey{run, stage, b.Role, b.LE.Microseconds()}] += b.Count
	}
}

func (s *sums) merge(o *sums) {
	for k, v := range o.counters {
		if s.counters == nil {
			s.counters = make(map[counterKey]int64, len(o.counters))
		}
		s.counters[k] += v
	}
	for k, v := range o.latency {
		if s.latency == nil {
			s.latency = make(map[latencyKey]int64, len(o.latency))
		}
		s.latency[k] += v
	}
}

const addCountersSQL = `INSERT INTO counters (run_id, stage_key, name, value)
	SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(?) WHERE true
	ON CONFLICT (run_id, stage_key, name) DO UPDATE SET value = counters.value + excluded.value`

const addLatencySQL = `INSERT INTO llm_latency (run_id, stage_key, role, le_us, n)
	SELECT value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(?) WHERE true
	ON CONFLICT (run_id, stage_key, role, le_us) DO UPDATE SET n = llm_latency.n + excluded.n`

// write adds the sums to the counters and llm_latency tables in tx.
func (s *sums) write(tx *sql.Tx) error {
	if len(s.counters) > 0 {
		rows := make([][4]any, 0, len(s.counters))
		for k, v := range s.counters {
			rows = append(rows, [4]any{k.run, k.stage, k.name, v})
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("encoding counters: %w", err)
		}
		if _, err := tx.Exec(addCountersSQL, string(b)); err != nil {
			return fmt.Errorf("adding counters: %w", err)
		}
	}
	if len(s.latency) > 0 {
		rows := make([][5]any, 0, len(s.latency))
		for k, n := range s.latency {
			rows = append(rows, [5]any{k.run, k.stage, k.role, k.le, n})
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("encoding latencies: %w", err)
		}
		if _, err := tx.Exec(addLatencySQL, string(b)); err != nil {
			return fmt.Errorf("adding latencies: %w", err)
		}
	}
	return nil
}
