package results

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// textMatch turns a search into a full-text query of the turn_text index
// (migration 0011): its words, each a word prefix, one after the other in
// one response — "driv test" finds "driving tests", case and accents
// folded by the index's unicode61 tokenizer. It returns "" for a search
// with no word (only punctuation or spaces).
func textMatch(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return ""
	}
	for i, w := range words {
		words[i] = w + "*"
	}
	return `"` + strings.Join(words, " ") + `"`
}

// textPage is a page of a text search: the run's episodes with a turn
// matching m, in storage order (turn ids grow with their episodes), read
// from the index so that a rare or absent word costs as little as a
// common one; the cursor is the last listed episode's last turn id.
func (s *Store) textPage(ctx context.Context, q EpisodeQuery, m string, c cursor, limit int) (EpisodePage, error) {
	where := []string{`f.turn_text MATCH ?`, `f.docid > ?`,
		`EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = e.unit_fp)`}
	args := []any{m, c.Turn, q.RunID}
	fw, fa := episodeFilters(q)
	where, args = append(where, fw...), append(args, fa...)
	query := `SELECT e.id, e.conv_id, e.system, e.dataset, e.valence, e.domain, e.unit_fp
		FROM turn_text f JOIN turns t ON t.id = f.docid JOIN episodes e ON e.id = t.episode_id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY f.docid`
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return EpisodePage{}, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
	}
	defer rows.Close()
	var page EpisodePage
	seen := map[int64]bool{}
	for rows.Next() && len(page.Episodes) <= limit {
		var e EpisodeSummary
		if err := rows.Scan(&e.ID, &e.ConvID, &e.System, &e.Dataset, &e.Valence, &e.Domain, &e.UnitFP); err != nil {
			return page, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			page.Episodes = append(page.Episodes, e)
		}
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
	}
	if err := rows.Close(); err != nil {
		return page, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
	}
	more := len(page.Episodes) > limit
	if more {
		page.Episodes = page.Episodes[:limit]
	}
	for i := range page.Episodes {
		e := &page.Episodes[i]
		if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(id), 0) FROM turns WHERE episode_id = ?`, e.ID).
			Scan(&e.NumTurns, &c.Turn); err != nil {
			return page, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
		}
	}
	if more {
		last := page.Episodes[limit-1]
		b, _ := json.Marshal(cursor{ConvID: last.ConvID, ID: last.ID, Turn: c.Turn})
		page.Next = base64.RawURLEncoding.EncodeToString(b)
	}
	return page, nil
}
