package results

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// StageLatency returns the latency histogram buckets every run of this
// database recorded for stage stageKey, summed per role and bound. A Slurm
// controller reads a shard's database with it to carry the shard's
// histograms into its own run (percentiles cannot be summed; buckets can).
func (s *Store) StageLatency(ctx context.Context, stageKey string) ([]LatencyBucket, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT role, le_us, SUM(n) FROM llm_latency
		WHERE stage_key = ? GROUP BY role, le_us ORDER BY role, le_us`, stageKey)
	if err != nil {
		return nil, fmt.Errorf("reading latencies of stage %s: %w", stageKey, err)
	}
	defer rows.Close()
	var out []LatencyBucket
	for rows.Next() {
		var b LatencyBucket
		var le int64
		if err := rows.Scan(&b.Role, &le, &b.Count); err != nil {
			return nil, fmt.Errorf("reading latencies of stage %s: %w", stageKey, err)
		}
		b.LE = time.Duration(le) * time.Microsecond
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading latencies of stage %s: %w", stageKey, err)
	}
	return out, nil
}

// AddLatency adds histogram buckets to stage stageKey of run runID in one
// transaction (outside any unit's).
func (s *Store) AddLatency(ctx context.Context, runID, stageKey string, hist []LatencyBucket) error {
	if len(hist) == 0 {
		return nil
	}
	var one sums
	one.addLatency(runID, stageKey, hist)
	return s.writeTx(ctx, func(tx *sql.Tx) error { return one.write(tx) })
}
