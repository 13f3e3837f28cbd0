package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// RunReplies calls fn with every cached LLM reply a run used: the replies
// whose keys belong to a unit the run produced or reused (keys start
// "<unit fingerprint>|"), in key order. A capsule packs them so a replay
// answers every request offline.
func (s *Store) RunReplies(ctx context.Context, runID string, fn func(key string, resp json.RawMessage) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT c.key, c.response_json FROM run_units ru
		JOIN llm_calls c ON c.key >= ru.fingerprint || '|' AND c.key < ru.fingerprint || '}'
		WHERE ru.run_id = ? AND c.response_json <> '{}' ORDER BY c.key`, runID) // '}' follows '|'
	if err != nil {
		return fmt.Errorf("reading the LLM replies of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return fmt.Errorf("reading the LLM replies of run %s: %w", runID, err)
		}
		if err := fn(k, json.RawMessage(v)); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RunArtifacts returns the artifacts of the units a run produced or
// reused, in id order.
func (s *Store) RunArtifacts(ctx context.Context, runID string) ([]Artifact, error) {
	return s.queryArtifacts(ctx, `JOIN run_units ru ON ru.fingerprint = a.unit_fp WHERE ru.run_id = ? ORDER BY a.id`, runID)
}

// SetArtifactHash records new content for an artifact (a replay that
// puts the replayed run's own artifact files in place of the ones it
// trained): its sha256 and size.
func (s *Store) SetArtifactHash(ctx context.Context, id int64, sha string, bytes int64) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE artifacts SET sha256 = ?, bytes = ? WHERE id = ?`, sha, bytes, id)
		if err != nil {
			return fmt.Errorf("updating artifact %d: %w", id, err)
		}
		return mustAffect(res, "artifact", fmt.Sprint(id))
	})
}
