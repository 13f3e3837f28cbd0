package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"unsafe"
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
// work counted its usage, and the attempts whose outcome it is. Storing
// reads JSON during the call only, and the caller must not change it then.
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

var putReplySQL = rowsSQL{head: `INSERT INTO llm_calls (key, response_json, counted, created_at) VALUES `,
	row: "(?, ?, ?, ?)", tail: ` ON CONFLICT (key) DO UPDATE SET response_json = excluded.response_json,
	counted = MAX(llm_calls.counted, excluded.counted)`}

// putReplies writes replies (one statement per maxRowsPerInsert) and
// settles the attempts they (and settled) answer; counted never goes back
// from 1 to 0. The column's CHECK (json_valid) refuses a reply that is
// not JSON.
func putReplies(ctx context.Context, tx *sql.Tx, sm *sums, replies []Reply, settled []Attempt) error {
	now := any(nowMS()) // boxed once for every row
	for len(replies) > 0 {
		chunk := replies[:min(len(replies), maxRowsPerInsert)]
		replies = replies[len(chunk):]
		args := make([]any, 0, 4*len(chunk))
		for _, r := range chunk {
			if r.Key == "" {
				return fmt.Errorf("caching an LLM response: empty key")
			}
			args = append(args, r.Key, bytesText(r.JSON), r.Counted, now)
			settled = append(settled, r.Settles...)
		}
		if _, err := tx.ExecContext(ctx, putReplySQL.text(len(chunk)), args...); err != nil {
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
	if len(as) <= maxRowsPerInsert && sameCounter(as) {
		return settleOne(ctx, tx, sm, as)
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

// sameCounter says whether attempts as all count in one counter (one run,
// stage and role): a unit's requests, usually.
func sameCounter(as []Attempt) bool {
	for _, a := range as[1:] {
		if a.RunID != as[0].RunID || a.StageKey != as[0].StageKey || a.Role != as[0].Role {
			return false
		}
	}
	return true
}

// settleOne is settle for attempts that count in one counter: the number
// of rows inserted is the count, so the rows need not come back, and the
// statement needs neither RETURNING nor json_each, which cost more than
// the insert itself (docs/benchmarks.md). The run id is bound once (?1);
// each "?" after it takes the next number.
func settleOne(ctx context.Context, tx *sql.Tx, sm *sums, as []Attempt) error {
	q := make([]byte, 0, len(settleOneSQL)+len(as)*8+len(settleOneConflict))
	q = append(q, settleOneSQL...)
	args := make([]any, 0, 1+len(as))
	args = append(args, as[0].RunID)
	for i, a := range as {
		if i > 0 {
			q = append(q, ',')
		}
		q = append(q, "(?1, ?)"...)
		args = append(args, a.Seq)
	}
	q = append(q, settleOneConflict...)
	res, err := tx.ExecContext(ctx, string(q), args...)
	if err != nil {
		return fmt.Errorf("settling LLM attempts: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("settling LLM attempts: %w", err)
	}
	if n > 0 {
		sm.addCounters(as[0].RunID, as[0].StageKey, map[string]int64{AttemptsCounter(as[0].Role): n})
	}
	return nil
}

const (
	settleOneSQL      = `INSERT INTO llm_settled (run_id, seq) VALUES `
	settleOneConflict = ` ON CONFLICT DO NOTHING`
)

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

// bytesText is b as a string argument, without a copy: SQLite copies the
// text it binds (go-sqlite3 binds with SQLITE_TRANSIENT), so the string
// is read only while the statement runs, while b does not change. A
// []byte argument would be stored as a BLOB, not the TEXT a reply is.
func bytesText(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
