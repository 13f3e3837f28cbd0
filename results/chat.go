package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// ChatStage is the stage key under which conversations with a run's
// trained system (mascot chat, the viewer's chat page) are stored, and
// ModeChat their episode mode.
const (
	ChatStage = "chat"
	ModeChat  = "chat"
)

// SaveChat stores a live conversation as the one episode of unit u (kind
// and stage "chat"), linked to u.RunID. The first save inserts the episode;
// later saves replace its turns and counts, keeping its id, so a viewer
// link stays valid while the conversation grows. It returns the episode id.
func (s *Store) SaveChat(ctx context.Context, u Unit, e Episode) (int64, error) {
	if u.Kind == "" {
		u.Kind = ChatStage
	}
	if u.StageKey == "" {
		u.StageKey = ChatStage
	}
	e.UnitFP, e.RunID, e.Idx, e.Mode = u.Fingerprint, u.RunID, 0, ModeChat
	var id int64
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := ensureUnit(ctx, tx, u, false); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT id FROM episodes WHERE unit_fp = ? AND idx = 0`, u.Fingerprint).Scan(&id)
		t := &Tx{tx: tx, s: s, ctx: ctx, unit: u}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if id, err = t.InsertEpisode(e); err != nil {
				return err
			}
		case err != nil:
			return fmt.Errorf("reading chat episode %s: %w", e.ConvID, err)
		default:
			if err := replaceTurns(ctx, t, id, e); err != nil {
				return err
			}
		}
		now := nowMS()
		if _, err := tx.ExecContext(ctx, markDoneSQL, now, now, nullString(u.RunID), u.Fingerprint); err != nil {
			return fmt.Errorf("marking chat unit %s done: %w", u.Fingerprint, err)
		}
		return linkUnit(ctx, tx, u, false, nil)
	})
	if err != nil {
		return 0, fmt.Errorf("saving chat %s: %w", e.ConvID, err)
	}
	return id, nil
}

// replaceTurns swaps the turns and per-agent counts of episode id for e's.
func replaceTurns(ctx context.Context, t *Tx, id int64, e Episode) error {
	spoken, err := mustJSON(e.AgentsSpoken, "{}")
	if err != nil {
		return fmt.Errorf("encoding agents_spoken of %s: %w", e.ConvID, err)
	}
	extra, err := mustJSON(e.Extra, "{}")
	if err != nil {
		return fmt.Errorf("encoding extra fields of %s: %w", e.ConvID, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM turns WHERE episode_id = ?`, id); err != nil {
		return fmt.Errorf("clearing turns of chat episode %d: %w", id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `UPDATE episodes SET agents_spoken = ?, extra_json = ? WHERE id = ?`,
		spoken, extra, id); err != nil {
		return fmt.Errorf("updating chat episode %d: %w", id, err)
	}
	for i := range e.Turns {
		e.Turns[i].EpisodeID = id
	}
	if len(e.Turns) == 0 {
		return nil
	}
	_, err = t.InsertTurns(e.Turns)
	return err
}

// humanMark is the turn extra field that marks a turn a person typed.
const humanMark = "human"

// HumanExtra is the Turn.Extra of a turn typed by a person.
func HumanExtra() map[string]json.RawMessage {
	return map[string]json.RawMessage{humanMark: json.RawMessage("true")}
}

// IsHuman reports whether a turn was typed by a person (mascot chat).
func IsHuman(t Turn) bool { return string(t.Extra[humanMark]) == "true" }
