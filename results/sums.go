package results

import (
	"database/sql"
	"fmt"
	"strconv"

	"mascot.dev/mascot/results/jsonl"
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

// write adds the sums to the counters and llm_latency tables in tx. The
// rows go as one JSON array per table, written by hand: boxing each row's
// members for json.Marshal made four allocations a counter, and the
// encoder's reflection more.
func (s *sums) write(tx *sql.Tx) error {
	if len(s.counters) > 0 {
		b := make([]byte, 0, 64*len(s.counters))
		b = append(b, '[')
		for k, v := range s.counters {
			b = appendRow(b, k.run, k.stage, k.name)
			b = append(strconv.AppendInt(b, v, 10), "],"...)
		}
		b[len(b)-1] = ']'
		if _, err := tx.Exec(addCountersSQL, bytesText(b)); err != nil {
			return fmt.Errorf("adding counters: %w", err)
		}
	}
	if len(s.latency) > 0 {
		b := make([]byte, 0, 64*len(s.latency))
		b = append(b, '[')
		for k, n := range s.latency {
			b = appendRow(b, k.run, k.stage, k.role)
			b = append(strconv.AppendInt(b, k.le, 10), ',')
			b = append(strconv.AppendInt(b, n, 10), "],"...)
		}
		b[len(b)-1] = ']'
		if _, err := tx.Exec(addLatencySQL, bytesText(b)); err != nil {
			return fmt.Errorf("adding latencies: %w", err)
		}
	}
	return nil
}

// appendRow opens a row of the sums' JSON with its three strings and a
// comma before the numbers.
func appendRow(b []byte, a, c, d string) []byte {
	b = jsonl.AppendString(append(b, '['), a)
	b = jsonl.AppendString(append(b, ','), c)
	b = jsonl.AppendString(append(b, ','), d)
	return append(b, ',')
}
