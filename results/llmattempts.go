package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Attempt is one HTTP attempt of an LLM request, recorded before it is
// sent (see the llm_attempts table, migration 0013).
type Attempt struct {
	ID       string // the X-Request-Id it carries
	RunID    string
	StageKey string
	Role     string
	Key      string // the request's cache key
	N        int    // 1 for the first try
}

// AttemptsCounter is the counter an attempt bumps: llm.<role>.attempts.
func AttemptsCounter(role string) string { return "llm." + role + ".attempts" }

// LostCounter counts a role's attempts whose run died with them in flight.
func LostCounter(role string) string { return "llm." + role + ".lost_in_flight" }

// RecordAttempt records attempt a and adds it to its run's attempts
// counter, in one transaction (joined to the group under way), and returns
// once that has committed: the caller sends the attempt only then, so a
// kill at any point loses no attempt the server may have received.
func (s *Store) RecordAttempt(ctx context.Context, a Attempt) error {
	return s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO llm_attempts (id, run_id, stage_key, role, key, attempt, sent_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, a.ID, a.RunID, a.StageKey, a.Role, a.Key, a.N, nowMS()); err != nil {
			return fmt.Errorf("recording LLM attempt %s: %w", a.ID, err)
		}
		sm.addCounters(a.RunID, a.StageKey, map[string]int64{AttemptsCounter(a.Role): 1})
		return nil
	})
}

// Reply is a response to store in the cache: its JSON, whether committed
// work counted its usage, and the attempts whose outcome it is.
type Reply struct {
	Key     string
	JSON    json.RawMessage
	Counted bool
	Settles []string // llm_attempts ids
}

// CachedReply is a stored response and whether its usage was counted.
type CachedReply struct {
	JSON    json.RawMessage
	Counted bool
}

const putReplySQL = `INSERT INTO llm_calls (key, response_json, counted, created_at) VALUES (?, ?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET response_json = excluded.response_json,
	counted = MAX(llm_calls.counted, excluded.counted)`

// putReplies writes replies and drops the attempts they (and settled)
// settle; counted never goes back from 1 to 0.
func putReplies(ctx context.Context, tx *sql.Tx, replies []Reply, settled []string) error {
	now := nowMS()
	for _, r := range replies {
		if r.Key == "" || !json.Valid(r.JSON) {
			return fmt.Errorf("caching LLM response %q: empty key or invalid JSON", r.Key)
		}
		if _, err := tx.ExecContext(ctx, putReplySQL, r.Key, string(r.JSON), r.Counted, now); err != nil {
			return fmt.Errorf("caching LLM response %s: %w", r.Key, err)
		}
		settled = append(settled, r.Settles...)
	}
	return settle(ctx, tx, settled)
}

func settle(ctx context.Context, tx *sql.Tx, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	arg, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encoding attempt ids: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM llm_attempts WHERE id IN (SELECT value FROM json_each(?))`,
		string(arg)); err != nil {
		return fmt.Errorf("settling LLM attempts: %w", err)
	}
	return nil
}

// PutReplies stores replies and settles attempts, all or none, in the
// store's next group transaction (see writeGrouped).
func (c *LLMCache) PutReplies(ctx context.Context, replies []Reply, settled []string) error {
	if len(replies) == 0 && len(settled) == 0 {
		return nil
	}
	return c.s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return putReplies(ctx, tx, replies, settled)
	})
}

// CountReplies marks, in the unit's transaction, the replies whose usage
// the unit counted: those still waiting to be cached are written with it
// (pending), the others updated by key.
func (t *Tx) CountReplies(pending []Reply, keys []string) error {
	for i := range pending {
		pending[i].Counted = true
	}
	if err := putReplies(t.ctx, t.tx, pending, nil); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	arg, err := json.Marshal(keys)
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

// SettleLost marks the open attempts of runs that are no longer live (a
// killed process's requests in flight) as lost and counts each in its
// run's llm.<role>.lost_in_flight, in one transaction; runs still live
// (another process's) are left alone. It returns how many it settled.
func (s *Store) SettleLost(ctx context.Context) (int, error) {
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
	now := time.Now()
	var dead []string
	for _, id := range runIDs {
		r, err := s.GetRun(ctx, id)
		if err != nil || !r.Live(now) {
			dead = append(dead, id) // a deleted run's attempts are lost too
		}
	}
	if len(dead) == 0 {
		return 0, nil
	}
	arg, err := json.Marshal(dead)
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
