package results

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"mascot.dev/mascot/results/jsonl"
)

const episodeColumns = `e.id, e.unit_fp, COALESCE(e.run_id, ''), e.idx, e.conv_id, e.id_field, e.id_raw, e.sample_idx,
	e.system, e.dataset, e.valence, e.domain, e.meeting, e.start_idx, e.mode, e.metadata_json, e.agents_spoken,
	e.initial_emotion, e.final_emotion, e.emotion_trajectory, e.user_big_five, e.extra_json, e.created_at`

func scanEpisode(sc interface{ Scan(...any) error }) (*Episode, error) {
	e := &Episode{}
	var idRaw, meeting, spoken, initEm, finalEm, traj, big5 sql.NullString
	var startIdx sql.NullInt64
	var meta, extra string
	var created int64
	err := sc.Scan(&e.ID, &e.UnitFP, &e.RunID, &e.Idx, &e.ConvID, &e.IDField, &idRaw, &e.SampleIdx, &e.System,
		&e.Dataset, &e.Valence, &e.Domain, &meeting, &startIdx, &e.Mode, &meta, &spoken, &initEm, &finalEm,
		&traj, &big5, &extra, &created)
	if err != nil {
		return nil, err
	}
	if idRaw.Valid {
		e.IDRaw = json.RawMessage(idRaw.String)
	}
	e.Meeting, e.InitialEmotion, e.FinalEmotion = strPtr(meeting), strPtr(initEm), strPtr(finalEm)
	if startIdx.Valid {
		n := int(startIdx.Int64)
		e.StartIdx = &n
	}
	if e.Metadata, err = jsonl.DecodeMetadata(json.RawMessage(meta)); err != nil {
		return nil, err
	}
	if spoken.Valid {
		if err := json.Unmarshal([]byte(spoken.String), &e.AgentsSpoken); err != nil {
			return nil, fmt.Errorf("decoding agents_spoken: %w", err)
		}
	}
	if traj.Valid {
		e.EmotionTrajectory = json.RawMessage(traj.String)
	}
	if big5.Valid {
		e.UserBigFive = json.RawMessage(big5.String)
	}
	if extra != "{}" {
		if err := decodeExtra(extra, &e.Extra); err != nil {
			return nil, fmt.Errorf("decoding extra fields: %w", err)
		}
	}
	e.CreatedAt = fromMS(created)
	return e, nil
}

func strPtr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

const turnColumns = `t.id, t.episode_id, t.turn_idx, t.round_id, t.turn_type, t.agent_name, t.response,
	t.directive_json, t.directive_output, t.extra_json`

func scanTurn(sc interface{ Scan(...any) error }) (Turn, error) {
	var t Turn
	var round sql.NullInt64
	var dir, out sql.NullString
	var extra string
	if err := sc.Scan(&t.ID, &t.EpisodeID, &t.TurnIdx, &round, &t.TurnType, &t.AgentName, &t.Response, &dir,
		&out, &extra); err != nil {
		return t, err
	}
	if round.Valid {
		r := int(round.Int64)
		t.RoundID = &r
	}
	if dir.Valid {
		t.Directive = &Directive{}
		if err := json.Unmarshal([]byte(dir.String), t.Directive); err != nil {
			return t, fmt.Errorf("decoding directive: %w", err)
		}
	}
	t.DirectiveOutput = strPtr(out)
	if extra != "{}" {
		if err := decodeExtra(extra, &t.Extra); err != nil {
			return t, fmt.Errorf("decoding extra fields of a turn: %w", err)
		}
	}
	return t, nil
}

// GetEpisode returns one episode with its turns.
func (s *Store) GetEpisode(ctx context.Context, id int64) (*Episode, error) {
	e, err := scanEpisode(s.r.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes e WHERE e.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading episode %d: %w", id, err)
	}
	if e.Turns, err = s.turnsOf(ctx, id); err != nil {
		return nil, err
	}
	return e, nil
}

func (s *Store) turnsOf(ctx context.Context, episodeID int64) ([]Turn, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.episode_id = ? ORDER BY t.turn_idx`,
		episodeID)
	if err != nil {
		return nil, fmt.Errorf("reading turns of episode %d: %w", episodeID, err)
	}
	defer rows.Close()
	var out []Turn
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, fmt.Errorf("reading turns of episode %d: %w", episodeID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// EpisodesForUnit returns the episodes a unit produced, with their turns
// (for stages that judge or score them).
func (s *Store) EpisodesForUnit(ctx context.Context, fingerprint string) ([]*Episode, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+episodeColumns+` FROM episodes e WHERE e.unit_fp = ? ORDER BY e.idx`,
		fingerprint)
	if err != nil {
		return nil, fmt.Errorf("reading episodes of unit %s: %w", fingerprint, err)
	}
	var out []*Episode
	for rows.Next() {
		e, err := scanEpisode(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading episodes of unit %s: %w", fingerprint, err)
		}
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading episodes of unit %s: %w", fingerprint, err)
	}
	for _, e := range out {
		if e.Turns, err = s.turnsOf(ctx, e.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EpisodeQuery selects a page of a run's episodes, ordered by (conv_id, id).
type EpisodeQuery struct {
	RunID   string
	System  string // exact; "" = any
	Dataset string // exact; "" = any
	Split   string // exact valence or domain; "" = any
	ConvID  string // conv_id prefix
	Text    string // words in one turn's response (see textMatch)
	After   string // cursor from the previous page's Next; "" = first page
	Limit   int    // 0 = 50, at most 1000
}

// EpisodeSummary is one row of an episodes page.
type EpisodeSummary struct {
	ID       int64  `json:"id"`
	ConvID   string `json:"conv_id"`
	System   string `json:"system"`
	Dataset  string `json:"dataset"`
	Valence  string `json:"valence,omitempty"`
	Domain   string `json:"domain,omitempty"`
	NumTurns int    `json:"num_turns"`
	UnitFP   string `json:"unit_fp"`
}

// EpisodePage is one page and the cursor of the next ("" at the end).
type EpisodePage struct {
	Episodes []EpisodeSummary `json:"episodes"`
	Next     string           `json:"next,omitempty"`
}

type cursor struct {
	ConvID string `json:"c"`
	ID     int64  `json:"i"`
	Turn   int64  `json:"t,omitempty"` // a text search's last turn id
}

// episodeFilters are the WHERE terms (on episodes e) of q's system,
// dataset, split and conv_id prefix.
func episodeFilters(q EpisodeQuery) ([]string, []any) {
	var where []string
	var args []any
	if q.System != "" {
		where, args = append(where, `e.system = ?`), append(args, q.System)
	}
	if q.Dataset != "" {
		where, args = append(where, `e.dataset = ?`), append(args, q.Dataset)
	}
	if q.Split != "" {
		where, args = append(where, `(e.valence = ? OR e.domain = ?)`), append(args, q.Split, q.Split)
	}
	if q.ConvID != "" {
		// A range on the index rather than LIKE (which is case-insensitive
		// and so cannot use it): prefix matching is case-sensitive.
		where = append(where, `e.conv_id >= ? AND e.conv_id < ?`)
		args = append(args, q.ConvID, q.ConvID+"\U0010FFFF")
	}
	return where, args
}

// EpisodesPage returns a page of a run's episodes by keyset pagination:
// the cost of a page does not grow with its position. A Text query with
// words is answered from the full-text index, in storage order (textPage).
func (s *Store) EpisodesPage(ctx context.Context, q EpisodeQuery) (EpisodePage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 1000)
	var c cursor
	if q.After != "" {
		b, err := base64.RawURLEncoding.DecodeString(q.After)
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil {
			return EpisodePage{}, fmt.Errorf("decoding page cursor: %w", err)
		}
	}
	if m := textMatch(q.Text); m != "" {
		return s.textPage(ctx, q, m, c, limit)
	}
	where := []string{`EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = e.unit_fp)`}
	args := []any{q.RunID}
	if q.After != "" {
		where, args = append(where, `(e.conv_id, e.id) > (?, ?)`), append(args, c.ConvID, c.ID)
	}
	fw, fa := episodeFilters(q)
	where, args = append(where, fw...), append(args, fa...)
	if q.Text != "" {
		// No word in it (punctuation only): a substring of a response.
		where = append(where, `EXISTS (SELECT 1 FROM turns t WHERE t.episode_id = e.id AND t.response LIKE ? ESCAPE '\')`)
		args = append(args, "%"+likePrefix(q.Text))
	}
	query := `SELECT e.id, e.conv_id, e.system, e.dataset, e.valence, e.domain, e.unit_fp,
		(SELECT COUNT(*) FROM turns t WHERE t.episode_id = e.id)
		FROM episodes e INDEXED BY episodes_by_conv WHERE ` + strings.Join(where, " AND ") +
		fmt.Sprintf(` ORDER BY e.conv_id, e.id LIMIT %d`, limit+1)
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return EpisodePage{}, fmt.Errorf("listing episodes of run %s: %w", q.RunID, err)
	}
	defer rows.Close()
	var page EpisodePage
	for rows.Next() {
		var e EpisodeSummary
		if err := rows.Scan(&e.ID, &e.ConvID, &e.System, &e.Dataset, &e.Valence, &e.Domain, &e.UnitFP,
			&e.NumTurns); err != nil {
			return page, fmt.Errorf("listing episodes of run %s: %w", q.RunID, err)
		}
		page.Episodes = append(page.Episodes, e)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("listing episodes of run %s: %w", q.RunID, err)
	}
	if len(page.Episodes) > limit {
		page.Episodes = page.Episodes[:limit]
		last := page.Episodes[limit-1]
		b, _ := json.Marshal(cursor{ConvID: last.ConvID, ID: last.ID})
		page.Next = base64.RawURLEncoding.EncodeToString(b)
	}
	return page, nil
}
