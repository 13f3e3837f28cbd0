package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Attempt is one HTTP attempt of an LLM request, recorded before it is
// sent (the run's AttemptLog, migration 0015).
type Attempt struct {
	ID       string // the X-Request-Id it carries: AttemptID(RunID, Seq)
	Seq      int64  // its number within the run, from 1
	RunID    string
	StageKey string
	Role     string
	Key      string // the request's cache key
	N        int    // 1 for the first try
}

// AttemptID is the id of attempt seq of run runID.
func AttemptID(runID string, seq int64) string { return runID + "." + strconv.FormatInt(seq, 10) }

// AttemptsCounter is the counter an attempt bumps: llm.<role>.attempts.
func AttemptsCounter(role string) string { return "llm." + role + ".attempts" }

// LostCounter counts a role's attempts whose run died with them in flight.
func LostCounter(role string) string { return "llm." + role + ".lost_in_flight" }

// Reply is a response to store in the cache: its JSON, whether committed
// work counted its usage, and the attempts whose outcome it is.
type Reply struct {
	Key     string
	JSON    json.RawMessage
	Counted bool
	Settles []Attempt
}

// CachedReply is a stored response and whether its usage was counted.
type CachedReply struct {
	JSON    json.RawMessage
	Counted bool
}

const putReplySQL = `INSERT INTO llm_calls (key, response_json, counted, created_at) VALUES `

const putReplyUpsert = ` ON CONFLICT (key) DO UPDATE SET response_json = excluded.response_json,
	counted = MAX(llm_calls.counted, excluded.counted)`

// putReplies writes replies (one statement per maxRowsPerInsert) and
// settles the attempts they (and settled) answer; counted never goes back
// from 1 to 0. The column's CHECK (json_valid) refuses a reply that is
// not JSON.
func putReplies(ctx context.Context, tx *sql.Tx, sm *sums, replies []Reply, settled []Attempt) error {
	now := nowMS()
	for len(replies) > 0 {
		chunk := replies[:min(len(replies), maxRowsPerInsert)]
		replies = replies[len(chunk):]
		q := make([]byte, 0, len(putReplySQL)+len(putReplyUpsert)+len(chunk)*16)
		q = append(q, putReplySQL...)
		args := make([]any, 0, 4*len(chunk))
		for i, r := range chunk {
			if r.Key == "" {
				return fmt.Errorf("caching an LLM response: empty key")
			}
			if i > 0 {
				q = append(q, ',')
			}
			q = append(q, "(?, ?, ?, ?)"...)
			args = append(args, r.Key, string(r.JSON), r.Counted, now)
			settled = append(settled, r.Settles...)
		}
		q = append(q, putReplyUpsert...)
		if _, err := tx.ExecContext(ctx, string(q), args...); err != nil {
			return fmt.Errorf("caching LLM responses (%s...): %w", chunk[0].Key, err)
		}
	}
	return settle(ctx, tx, sm, settled)
}

// settle records that the outcomes of attempts as are stored, and counts
// in sm (llm.<role>.attempts of each one's run and stage) those that were
// not settled before: an attempt settled twice is counted once.
func settle(ctx context.Context, tx *sql.Tx, sm *sums, as []Attempt) error {
	if len(as) == 0 {
		return nil
	}
	type ref struct {
		run string
		seq int64
	}
	rows := make([][2]any, len(as))
	by := make(map[ref]*Attempt, len(as))
	for i := range as {
		rows[i] = [2]any{as[i].RunID, as[i].Seq}
		by[ref{as[i].RunID, as[i].Seq}] = &as[i]
	}
	arg, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encoding attempts: %w", err)
	}
	res, err := tx.QueryContext(ctx, `INSERT INTO llm_settled (run_id, seq) SELECT value->>0, value->>1 FROM json_each(?)
		WHERE true ON CONFLICT DO NOTHING RETURNING run_id, seq`, string(arg))
	if err != nil {
		return fmt.Errorf("settling LLM attempts: %w", err)
	}
	defer res.Close()
	type stageRole struct{ run, stage, role string }
	counts := map[stageRole]int64{}
	for res.Next() {
		var r ref
		if err := res.Scan(&r.run, &r.seq); err != nil {
			return fmt.Errorf("settling LLM attempts: %w", err)
		}
		if a := by[r]; a != nil {
			counts[stageRole{a.RunID, a.StageKey, a.Role}]++
		}
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("settling LLM attempts: %w", err)
	}
	for k, n := range counts {
		sm.addCounters(k.run, k.stage, map[string]int64{AttemptsCounter(k.role): n})
	}
	return nil
}

// PutReplies stores replies and settles attempts, all or none, in the
// store's next group transaction (see writeGrouped).
func (c *LLMCache) PutReplies(ctx context.Context, replies []Reply, settled []Attempt) error {
	if len(replies) == 0 && len(settled) == 0 {
		return nil
	}
	return c.s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		return putReplies(ctx, tx, sm, replies, settled)
	})
}

// CountReplies marks, in the unit's transaction, the replies whose usage
// the unit counted: those still waiting to be cached are written with it
// (pending), the others updated by key.
func (t *Tx) CountReplies(pending []Reply, keys []string) error {
	written := make(map[string]bool, len(pending))
	for i := range pending {
		pending[i].Counted = true
		written[pending[i].Key] = true
	}
	sm := t.sums
	if sm == nil {
		sm = &sums{}
	}
	if err := putReplies(t.ctx, t.tx, sm, pending, nil); err != nil {
		return err
	}
	if sm != t.sums {
		if err := sm.write(t.tx); err != nil {
			return err
		}
	}
	stored := make([]string, 0, len(keys))
	for _, k := range keys {
		if !written[k] {
			stored = append(stored, k)
		}
	}
	if len(stored) == 0 {
		return nil
	}
	arg, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("encoding cache keys: %w", err)
	}
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE llm_calls SET counted = 1
		WHERE counted = 0 AND key IN (SELECT value FROM json_each(?))`, string(arg)); err != nil {
		return fmt.Errorf("marking counted LLM replies: %w", err)
	}
	return nil
}

// GetCounted returns the cached response for key and whether its usage
// was counted.
func (c *LLMCache) GetCounted(ctx context.Context, key string) (CachedReply, bool, error) {
	var r CachedReply
	var resp string
	err := c.s.r.QueryRowContext(ctx, `SELECT response_json, counted FROM llm_calls WHERE key = ? AND response_json <> '{}'`,
		key).Scan(&resp, &r.Counted)
	if err == sql.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("reading LLM cache %s: %w", key, err)
	}
	r.JSON = json.RawMessage(resp)
	return r, true, nil
}

// GetPrefixCounted is GetPrefix with each reply's counted flag.
func (c *LLMCache) GetPrefixCounted(ctx context.Context, prefix string) (map[string]CachedReply, error) {
	rows, err := c.s.r.QueryContext(ctx, `SELECT key, response_json, counted FROM llm_calls
		WHERE key >= ? AND key < ? AND response_json <> '{}'`, prefix+"|", prefix+"}") // '}' follows '|'
	if err != nil {
		return nil, fmt.Errorf("reading LLM cache of %s: %w", prefix, err)
	}
	defer rows.Close()
	out := map[string]CachedReply{}
	for rows.Next() {
		var k, v string
		var counted bool
		if err := rows.Scan(&k, &v, &counted); err != nil {
			return nil, fmt.Errorf("reading LLM cache of %s: %w", prefix, err)
		}
		out[k] = CachedReply{JSON: json.RawMessage(v), Counted: counted}
	}
	return out, rows.Err()
}

// SettleLost counts the attempts that runs no longer live (a killed
// process's) had in flight: those of their journals never settled, and
// the open llm_attempts rows that versions before migration 0015 left.
// They are marked lost and counted in their run's llm.<role>.attempts
// (journals only: an open row was counted when recorded) and
// llm.<role>.lost_in_flight; runs still live (another process's) are left
// alone. It also drops what llm_settled holds of dead runs whose journal
// is gone. It returns how many attempts it found lost.
func (s *Store) SettleLost(ctx context.Context) (int, error) {
	now := time.Now()
	deadRuns := map[string]bool{}
	var lookErr error
	dead := func(id string) bool {
		if d, ok := deadRuns[id]; ok {
			return d
		}
		r, err := s.GetRun(ctx, id)
		if err != nil && !errors.Is(err, ErrNotFound) {
			lookErr = err
			return false
		}
		deadRuns[id] = err != nil || !r.Live(now) // a deleted run's attempts are lost too
		return deadRuns[id]
	}
	n, err := s.settleLogs(ctx, dead)
	if err == nil {
		err = lookErr
	}
	if err != nil {
		return n, err
	}
	m, err := s.settleOpenRows(ctx, dead)
	if err == nil {
		err = s.dropOrphanSettled(ctx, dead)
	}
	if err == nil {
		err = lookErr
	}
	return n + m, err
}

// settleOpenRows settles the open llm_attempts rows of dead runs, which
// versions before migration 0015 wrote (counted when recorded).
func (s *Store) settleOpenRows(ctx context.Context, dead func(string) bool) (int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT run_id FROM llm_attempts WHERE lost = 0`)
	if err != nil {
		return 0, fmt.Errorf("reading open LLM attempts: %w", err)
	}
	var runIDs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("reading open LLM attempts: %w", err)
		}
		runIDs = append(runIDs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("reading open LLM attempts: %w", err)
	}
	var gone []string
	for _, id := range runIDs {
		if dead(id) {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	arg, err := json.Marshal(gone)
	if err != nil {
		return 0, fmt.Errorf("encoding run ids: %w", err)
	}
	n := 0
	err = s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		rows, err := tx.QueryContext(ctx, `SELECT run_id, stage_key, role, COUNT(*) FROM llm_attempts
			WHERE lost = 0 AND run_id IN (SELECT value FROM json_each(?)) GROUP BY run_id, stage_key, role`, string(arg))
		if err != nil {
			return fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		type lost struct {
			run, stage, role string
			k                int
		}
		var found []lost
		for rows.Next() {
			var l lost
			if err := rows.Scan(&l.run, &l.stage, &l.role, &l.k); err != nil {
				rows.Close()
				return fmt.Errorf("reading lost LLM attempts: %w", err)
			}
			found = append(found, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		for _, l := range found {
			if runExists(ctx, tx, l.run) {
				sm.addCounters(l.run, l.stage, map[string]int64{LostCounter(l.role): int64(l.k)})
			}
			n += l.k
		}
		_, err = tx.ExecContext(ctx, `UPDATE llm_attempts SET lost = 1 WHERE lost = 0
			AND run_id IN (SELECT value FROM json_each(?))`, string(arg))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("settling lost LLM attempts: %w", err)
	}
	return n, nil
}

// dropOrphanSettled drops the llm_settled rows of dead runs that have no
// journal left (a crash between a journal's removal and its rows').
func (s *Store) dropOrphanSettled(ctx context.Context, dead func(string) bool) error {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT run_id FROM llm_settled`)
	if err != nil {
		return fmt.Errorf("reading settled LLM attempts: %w", err)
	}
	var runs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("reading settled LLM attempts: %w", err)
		}
		runs = append(runs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(runs) == 0 {
		return err
	}
	logs, err := s.attemptLogs()
	if err != nil {
		return err
	}
	for _, id := range runs {
		if _, ok := logs[id]; !ok && dead(id) {
			if err := s.dropSettled(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// runExists says whether run id has a row (counters reference runs).
func runExists(ctx context.Context, tx *sql.Tx, id string) bool {
	var one int
	return tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one) == nil
}

// LostAttempts returns the ids of the attempts marked lost (for tests and
// audits that reconcile a server's log with the store).
func (s *Store) LostAttempts(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM llm_attempts WHERE lost = 1 ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading lost LLM attempts: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading lost LLM attempts: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DeleteReplies drops the cached replies under keys (their attempts are
// settled already), in the store's next group transaction.
func (c *LLMCache) DeleteReplies(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	arg, err := json.Marshal(keys)
	if err != nil {
		return fmt.Errorf("encoding cache keys: %w", err)
	}
	return c.s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM llm_calls WHERE key IN (SELECT value FROM json_each(?))`,
			string(arg)); err != nil {
			return fmt.Errorf("dropping cached LLM replies: %w", err)
		}
		return nil
	})
}
