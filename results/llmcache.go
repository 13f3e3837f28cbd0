package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

const putLLMCallSQL = `INSERT INTO llm_calls (key, unit_fp, run_id, role, model_id, url, request_json,
	response_json, prompt_tokens, completion_tokens, latency_ms, attempts, cached, error, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const putLLMCallUpsert = ` ON CONFLICT (key) DO UPDATE SET
	unit_fp = COALESCE(excluded.unit_fp, llm_calls.unit_fp),
	run_id = COALESCE(excluded.run_id, llm_calls.run_id),
	role = excluded.role, model_id = excluded.model_id, url = excluded.url,
	request_json = CASE WHEN excluded.request_json = '{}' THEN llm_calls.request_json ELSE excluded.request_json END,
	response_json = CASE WHEN excluded.response_json = '{}' THEN llm_calls.response_json ELSE excluded.response_json END,
	prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
	latency_ms = excluded.latency_ms, attempts = excluded.attempts, cached = excluded.cached,
	error = excluded.error`

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func putLLMCall(ctx context.Context, db execer, c LLMCall) error {
	req, err := scrubRequest(c.Request)
	if err != nil {
		return fmt.Errorf("recording LLM call %s: %w", c.Key, err)
	}
	q := putLLMCallSQL
	if c.Key != "" {
		q += putLLMCallUpsert
	}
	_, err = db.ExecContext(ctx, q, nullString(c.Key), nullString(c.UnitFP), nullString(c.RunID), c.Role, c.ModelID,
		c.URL, req, jsonOr(c.Response, "{}"), c.PromptTokens, c.CompletionTokens,
		float64(c.Latency.Microseconds())/1000, c.Attempts, c.Cached, c.Error, nowMS())
	if err != nil {
		return fmt.Errorf("recording LLM call %s: %w", c.Key, err)
	}
	return nil
}

// LLMCache is the response cache kept in the llm_calls table, keyed by the
// unit fingerprint (sample index included). Put writes immediately (outside
// any unit transaction), so a paid-for response survives a crash before its
// unit commits.
type LLMCache struct{ s *Store }

// LLMCache returns the store's response cache.
func (s *Store) LLMCache() *LLMCache { return &LLMCache{s: s} }

// Get returns the cached response JSON for key, and whether there was one.
func (c *LLMCache) Get(ctx context.Context, key string) (json.RawMessage, bool, error) {
	var resp string
	err := c.s.r.QueryRowContext(ctx, `SELECT response_json FROM llm_calls WHERE key = ? AND response_json <> '{}'`, key).
		Scan(&resp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading LLM cache %s: %w", key, err)
	}
	return json.RawMessage(resp), true, nil
}

// Put stores a response under key, replacing an older one.
func (c *LLMCache) Put(ctx context.Context, key string, value json.RawMessage) error {
	if key == "" {
		return fmt.Errorf("caching LLM response: empty key")
	}
	if !json.Valid(value) {
		return fmt.Errorf("caching LLM response %s: invalid JSON", key)
	}
	_, err := c.s.w.ExecContext(ctx, putCachedSQL, key, string(value), nowMS())
	if err != nil {
		return fmt.Errorf("caching LLM response %s: %w", key, err)
	}
	return nil
}

// GetPrefix returns every cached response whose key starts with
// prefix+"|" (all the requests of one unit: keys start with the unit
// fingerprint), in one query.
func (c *LLMCache) GetPrefix(ctx context.Context, prefix string) (map[string]json.RawMessage, error) {
	rows, err := c.s.r.QueryContext(ctx, `SELECT key, response_json FROM llm_calls
		WHERE key >= ? AND key < ? AND response_json <> '{}'`, prefix+"|", prefix+"}") // '}' follows '|'
	if err != nil {
		return nil, fmt.Errorf("reading LLM cache of %s: %w", prefix, err)
	}
	defer rows.Close()
	out := map[string]json.RawMessage{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("reading LLM cache of %s: %w", prefix, err)
		}
		out[k] = json.RawMessage(v)
	}
	return out, rows.Err()
}

// Holding returns the subset of prefixes (unit fingerprints) that have a
// cached response (a key starting with prefix+"|"), in one query whatever
// their number, so a run reads the cache only for the units that have one.
func (c *LLMCache) Holding(ctx context.Context, prefixes []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(prefixes) == 0 {
		return out, nil
	}
	arg, err := json.Marshal(prefixes)
	if err != nil {
		return nil, fmt.Errorf("encoding cache prefixes: %w", err)
	}
	rows, err := c.s.r.QueryContext(ctx, `SELECT j.value FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM llm_calls
		WHERE key >= j.value || '|' AND key < j.value || '}' AND response_json <> '{}')`, string(arg)) // '}' follows '|'
	if err != nil {
		return nil, fmt.Errorf("looking up cached LLM responses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("reading cached LLM responses: %w", err)
		}
		out[p] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading cached LLM responses: %w", err)
	}
	return out, nil
}

const putCachedSQL = `INSERT INTO llm_calls (key, response_json, created_at) VALUES (?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET response_json = excluded.response_json`

// PutMany stores several responses (key -> response JSON), all or none.
// They join the group transaction of the unit writes under way (see
// writeGrouped) instead of taking the writer for a transaction of their
// own.
func (c *LLMCache) PutMany(ctx context.Context, entries map[string]json.RawMessage) error {
	if len(entries) == 0 {
		return nil
	}
	return c.s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := nowMS()
		for key, value := range entries {
			if key == "" || !json.Valid(value) {
				return fmt.Errorf("caching LLM response %q: empty key or invalid JSON", key)
			}
			if _, err := tx.ExecContext(ctx, putCachedSQL, key, string(value), now); err != nil {
				return fmt.Errorf("caching LLM response %s: %w", key, err)
			}
		}
		return nil
	})
}

// PutLLMCall records a traced call outside a unit transaction (credentials
// are scrubbed from the request). See Tx.PutLLMCall.
func (s *Store) PutLLMCall(ctx context.Context, c LLMCall) error {
	return putLLMCall(ctx, s.w, c)
}

// WithUnit runs fn in one write transaction after marking the unit running,
// without marking it done: for long units (training) that log steps or
// artifacts as they go. Rows written this way stay if the unit later fails.
// A unit that is already done is left alone and fn is not called.
func (s *Store) WithUnit(ctx context.Context, u Unit, fn func(tx *Tx) error) error {
	return s.writeTx(ctx, func(stx *sql.Tx) error {
		prev, err := ensureUnit(ctx, stx, u, false)
		if err != nil || prev == UnitDone {
			return err
		}
		return fn(&Tx{tx: stx, s: s, ctx: ctx, unit: u})
	})
}
