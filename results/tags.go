package results

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
)

// tagForm is what a tag may be: a label that needs no quoting in a shell
// or a URL, up to 64 characters.
var tagForm = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$`)

// ErrBadTag is returned (wrapped) for a tag not of tagForm.
var ErrBadTag = fmt.Errorf("a tag is a letter or digit, then letters, digits or _ . : + - (at most 64)")

// TagRun adds tags to run id; a tag it has already is kept once.
func (s *Store) TagRun(ctx context.Context, id string, tags ...string) error {
	for _, t := range tags {
		if !tagForm.MatchString(t) {
			return fmt.Errorf("tag %q: %w", t, ErrBadTag)
		}
	}
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, t := range tags {
			if _, err := tx.ExecContext(ctx, `INSERT INTO run_tags (run_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, t); err != nil {
				return fmt.Errorf("tagging run %s: %w", id, err)
			}
		}
		return nil
	})
}

// UntagRun removes tags from run id (tags it does not have are ignored).
func (s *Store) UntagRun(ctx context.Context, id string, tags ...string) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, t := range tags {
			if _, err := tx.ExecContext(ctx, `DELETE FROM run_tags WHERE run_id = ? AND tag = ?`, id, t); err != nil {
				return fmt.Errorf("untagging run %s: %w", id, err)
			}
		}
		return nil
	})
}

// RunTags returns run id's tags, sorted.
func (s *Store) RunTags(ctx context.Context, id string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag`, id)
	if err != nil {
		return nil, fmt.Errorf("reading tags of run %s: %w", id, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("reading tags of run %s: %w", id, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
