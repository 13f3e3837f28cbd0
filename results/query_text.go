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
	last, err := s.countTurns(ctx, page.Episodes)
	if err != nil {
		return page, fmt.Errorf("searching episodes of run %s: %w", q.RunID, err)
	}
	c.Turn = last
	if more {
		last := page.Episodes[limit-1]
		b, _ := json.Marshal(cursor{ConvID: last.ConvID, ID: last.ID, Turn: c.Turn})
		page.Next = base64.RawURLEncoding.EncodeToString(b)
	}
	return page, nil
}

// countTurns sets the turn counts of a page's episodes in one query and
// returns the last turn id of the page's last episode (the next cursor).
func (s *Store) countTurns(ctx context.Context, eps []EpisodeSummary) (int64, error) {
	if len(eps) == 0 {
		return 0, nil
	}
	ids := make([]any, len(eps))
	for i, e := range eps {
		ids[i] = e.ID
	}
	rows, err := s.r.QueryContext(ctx, `SELECT episode_id, COUNT(*), MAX(id) FROM turns
		WHERE episode_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) GROUP BY episode_id`, ids...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	type tally struct{ n, last int64 }
	got := make(map[int64]tally, len(eps))
	for rows.Next() {
		var id int64
		var t tally
		if err := rows.Scan(&id, &t.n, &t.last); err != nil {
			return 0, err
		}
		got[id] = t
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for i := range eps {
		eps[i].NumTurns = int(got[eps[i].ID].n)
	}
	return got[eps[len(eps)-1].ID].last, nil
}
