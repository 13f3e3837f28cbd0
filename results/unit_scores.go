package results

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// unitScore is one (episode, tag) sum of a unit: what the report's scan
// adds for that episode and tag from the unit's raw rows.
type unitScore struct {
	episode int64
	tag     string
	sum     float64
	n       int32
}

// writeUnitScores computes the unit's score sums from its raw judgments and
// metrics and stores them packed in unit_scores (migration 0008), in tx,
// and returns them with the unit's judges (as unit_scores.judges holds
// them). It reads the rows with the scan's own query, so the values arrive
// in the scan's order and each sum is the scan's running sum bit for bit.
func writeUnitScores(ctx context.Context, tx *sql.Tx, fp string) ([]unitScore, string, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM unit_scores WHERE unit_fp = ?`, fp); err != nil {
		return nil, "", fmt.Errorf("clearing score sums of unit %s: %w", fp, err)
	}
	var judged, metrics sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT `+rawValuesSQL+` FROM (SELECT ? AS fingerprint) ru`, fp).
		Scan(&judged, &metrics)
	if err != nil {
		return nil, "", fmt.Errorf("reading values of unit %s: %w", fp, err)
	}
	index := map[unitScoreKey]int{}
	var sums []unitScore
	turnEpisode := map[int64]int64{}
	add := func(eid int64, tag string, v float64, n int32) error {
		if eid < 0 { // a turn judgment: −turn id
			ep, ok := turnEpisode[-eid]
			if !ok {
				err := tx.QueryRowContext(ctx, `SELECT episode_id FROM turns WHERE id = ?`, -eid).Scan(&ep)
				if err != nil {
					return fmt.Errorf("reading episode of turn %d: %w", -eid, err)
				}
				turnEpisode[-eid] = ep
			}
			eid = ep
		}
		k := unitScoreKey{eid, tag}
		i, ok := index[k]
		if !ok {
			i = len(sums)
			index[k] = i
			sums = append(sums, unitScore{episode: eid, tag: tag})
		}
		sums[i].sum += v
		sums[i].n += n
		return nil
	}
	for _, packed := range []string{judged.String, metrics.String} {
		if err := eachValue(packed, add); err != nil {
			return nil, "", fmt.Errorf("summing values of unit %s: %w", fp, err)
		}
	}
	var b []byte
	for i, s := range sums {
		if i > 0 {
			b = append(b, '\x1e')
		}
		b = strconv.AppendInt(b, s.episode, 10)
		b = append(b, '\x1f')
		b = append(b, s.tag...)
		b = append(b, '\x1f')
		b = strconv.AppendFloat(b, s.sum, 'g', -1, 64)
		b = append(b, '\x1f')
		b = strconv.AppendInt(b, int64(s.n), 10)
	}
	var judges string
	if err := tx.QueryRowContext(ctx, `INSERT INTO unit_scores (unit_fp, packed, judges) VALUES (?1, ?2, `+unitJudgesSQL+`)
		RETURNING judges`, fp, string(b)).Scan(&judges); err != nil {
		return nil, "", fmt.Errorf("writing score sums of unit %s: %w", fp, err)
	}
	return sums, judges, nil
}

// unitJudgesSQL lists the distinct judges of unit ?1's judgments
// (candidates aside) joined by U+001E (migration 0014).
const unitJudgesSQL = `(SELECT COALESCE(group_concat(judge, char(30)), '')
	FROM (SELECT DISTINCT j.judge FROM judgments j WHERE j.unit_fp = ?1 AND j.candidate_id IS NULL))`

type unitScoreKey struct {
	episode int64
	tag     string
}

// FillUnitScores computes the score sums of the done units that have none
// and hold values the report reads (units committed before migration 0008,
// ingested or imported ones, units whose rows changed after their commit),
// batch transactions at a time, and returns how many it computed. Reports are right without it, only slower
// on the units it has not filled.
func (s *Store) FillUnitScores(ctx context.Context) (int, error) {
	const batch = 2000
	total := 0
	after := ""
	for {
		rows, err := s.r.QueryContext(ctx, `SELECT u.fingerprint FROM units u
			WHERE u.state = 'done' AND u.fingerprint > ?
			AND NOT EXISTS (SELECT 1 FROM unit_scores us WHERE us.unit_fp = u.fingerprint)
			AND (EXISTS (SELECT 1 FROM judgments j WHERE j.unit_fp = u.fingerprint AND j.candidate_id IS NULL)
			  OR EXISTS (SELECT 1 FROM metrics m WHERE m.unit_fp = u.fingerprint AND m.episode_id IS NOT NULL))
			ORDER BY u.fingerprint LIMIT ?`, after, batch)
		if err != nil {
			return total, fmt.Errorf("listing unscored units: %w", err)
		}
		var fps []string
		for rows.Next() {
			var fp string
			if err := rows.Scan(&fp); err != nil {
				rows.Close()
				return total, fmt.Errorf("listing unscored units: %w", err)
			}
			fps = append(fps, fp)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return total, fmt.Errorf("listing unscored units: %w", err)
		}
		if len(fps) == 0 {
			return total, nil
		}
		err = s.writeTx(ctx, func(tx *sql.Tx) error {
			for _, fp := range fps {
				if _, _, err := writeUnitScores(ctx, tx, fp); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += len(fps)
		after = fps[len(fps)-1]
	}
}

// eachValue calls fn for each entry of a packed value text: entries
// "episode␟tag␟value" (raw rows; n = 1) or "episode␟tag␟sum␟n" (unit
// score sums) joined by ␞.
func eachValue(packed string, fn func(eid int64, tag string, v float64, n int32) error) error {
	for len(packed) > 0 {
		var entry string
		entry, packed, _ = strings.Cut(packed, "\x1e")
		eidText, rest, ok1 := strings.Cut(entry, "\x1f")
		tag, valText, ok2 := strings.Cut(rest, "\x1f")
		if !ok1 || !ok2 || tag == "" {
			return fmt.Errorf("unpacking value %q: a criterion contains U+001E or U+001F", entry)
		}
		n := int32(1)
		if v, nText, ok := strings.Cut(valText, "\x1f"); ok {
			k, err := strconv.ParseInt(nText, 10, 32)
			if err != nil {
				return fmt.Errorf("unpacking value %q: %w", entry, err)
			}
			valText, n = v, int32(k)
		}
		eid, err := strconv.ParseInt(eidText, 10, 64)
		if err != nil {
			return fmt.Errorf("unpacking value %q: %w", entry, err)
		}
		v, err := strconv.ParseFloat(valText, 64)
		if err != nil {
			return fmt.Errorf("unpacking value %q: %w", entry, err)
		}
		if err := fn(eid, tag, v, n); err != nil {
			return err
		}
	}
	return nil
}
