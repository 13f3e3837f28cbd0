package results

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// StageDigest says what a stage of a run holds, as a function of content
// alone: ids, run ids and times (which differ between two databases with
// the same results) are left out, and rows that point at other rows name
// them by their unit fingerprint and position. Two runs whose stages have
// equal digests hold the same results; the first stage whose digest
// differs is where two runs part.
type StageDigest struct {
	Key   string `json:"key"`
	Units int    `json:"units"`
	// UnitsSHA256 hashes the stage's unit fingerprints, sorted.
	UnitsSHA256 string `json:"units_sha256"`
	// Rows counts, per result table, the stage's rows; RowsSHA256 hashes
	// them all (content columns, sorted).
	Rows       map[string]int `json:"rows"`
	RowsSHA256 string         `json:"rows_sha256"`
	// Artifacts are the stage's artifacts by kind and content hash.
	Artifacts []ArtifactDigest `json:"artifacts,omitempty"`
}

// ArtifactDigest is one artifact of a stage: its kind, directory name and
// content hash.
type ArtifactDigest struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"` // the directory's base name
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// digestQueries select, per result table, one text line per row of the
// units in ?1 (a JSON array of fingerprints): content columns only,
// references resolved to the referenced row's unit and position.
var digestQueries = []struct{ table, sql string }{
	// Row ids inside JSON (a group pair's block candidate names its
	// episode, a branch its parent episode) are resolved like columns.
	{"candidates", `SELECT c.unit_fp, json_array(c.kind, c.context_id, c.persona, c.sample_idx, ` + candidatePrompt("c") + `, c.text, c.raw,
		c.model_id, ` + idInJSON("c.meta_json", "$.episode_id") + `) FROM json_each(?1) d JOIN units u ON u.fingerprint = d.value JOIN candidates c ON c.unit_no = u.no`},
	{"episodes", `SELECT e.unit_fp, json_array(e.idx, e.conv_id, e.id_field, e.id_raw, e.sample_idx, e.system, e.dataset,
		e.valence, e.domain, e.meeting, e.start_idx, e.mode, ` + idInJSON("e.metadata_json", "$.branch.parent_episode_id") +
		`, e.agents_spoken, e.initial_emotion,
		e.final_emotion, e.emotion_trajectory, e.user_big_five, e.extra_json) FROM episodes e
		JOIN json_each(?1) d ON d.value = e.unit_fp`},
	{"turns", `SELECT e.unit_fp, json_array(e.idx, t.turn_idx, t.round_id, t.turn_type, t.agent_name, t.response,
		t.directive_json, t.directive_output, t.extra_json) FROM turns t JOIN episodes e ON e.id = t.episode_id
		JOIN json_each(?1) d ON d.value = e.unit_fp`},
	{"judgments", `SELECT j.unit_fp, json_array(j.judge, j.rubric_version, j.criterion, j.agent, j.score, j.scale_min,
		j.scale_max, j.rationale, j.raw,
		(SELECT c.unit_fp || '#' || c.sample_idx FROM candidates c WHERE c.id = j.candidate_id),
		(SELECT e.unit_fp || '#' || e.idx || '#' || t.turn_idx FROM turns t JOIN episodes e ON e.id = t.episode_id
			WHERE t.id = j.turn_id),
		(SELECT e.unit_fp || '#' || e.idx FROM episodes e WHERE e.id = j.episode_id))
		FROM judgments j JOIN json_each(?1) d ON d.value = j.unit_fp`},
	{"comparisons", `SELECT m.unit_fp, json_array(m.judge, m.criterion, m.context_id, m.systems_json, m.choice,
		m.rationale, m.raw, (SELECT json_group_array(e.unit_fp || '#' || e.idx) FROM json_each(m.episodes_json) x
			JOIN episodes e ON e.id = x.value)) FROM comparisons m JOIN json_each(?1) d ON d.value = m.unit_fp`},
	{"metrics", `SELECT m.unit_fp, json_array(m.system, m.name, m.value, m.meta_json,
		(SELECT e.unit_fp || '#' || e.idx FROM episodes e WHERE e.id = m.episode_id))
		FROM metrics m JOIN json_each(?1) d ON d.value = m.unit_fp`},
	{"pairs", `SELECT p.unit_fp, json_array(p.context_id, p.persona, p.chosen_score, p.rejected_score, p.margin,
		(SELECT c.unit_fp || '#' || c.sample_idx FROM candidates c WHERE c.id = p.chosen_id),
		(SELECT c.unit_fp || '#' || c.sample_idx FROM candidates c WHERE c.id = p.rejected_id))
		FROM pairs p JOIN json_each(?1) d ON d.value = p.unit_fp`},
	// tokens_per_sec is a wall-clock rate, not a result.
	{"training_steps", `SELECT s.unit_fp, json_array(s.step, s.epoch, s.loss, s.reward, s.kl, s.lr, s.grad_norm,
		json_remove(s.values_json, '$.tokens_per_sec')) FROM training_steps s JOIN json_each(?1) d ON d.value = s.unit_fp`},
	{"artifacts", `SELECT a.unit_fp, json_array(a.kind, a.sha256, a.bytes) FROM artifacts a
		JOIN json_each(?1) d ON d.value = a.unit_fp`},
}

// idInJSON is SQL for the JSON column col with the episode id at path
// replaced by that episode's unit fingerprint and index.
func idInJSON(col, path string) string {
	return `CASE WHEN json_extract(` + col + `, '` + path + `') IS NULL THEN ` + col + ` ELSE json_set(` + col + `, '` + path +
		`', (SELECT x.unit_fp || '#' || x.idx FROM episodes x WHERE x.id = json_extract(` + col + `, '` + path + `'))) END`
}

// StageDigests returns the digest of every stage of run runID (the units
// it produced or reused, by stage key), sorted by key.
func (s *Store) StageDigests(ctx context.Context, runID string) ([]StageDigest, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT stage_key, fingerprint FROM run_units WHERE run_id = ?
		ORDER BY stage_key, fingerprint`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading the units of run %s: %w", runID, err)
	}
	units := map[string][]string{}
	for rows.Next() {
		var k, fp string
		if err := rows.Scan(&k, &fp); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading the units of run %s: %w", runID, err)
		}
		units[k] = append(units[k], fp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the units of run %s: %w", runID, err)
	}
	keys := make([]string, 0, len(units))
	for k := range units {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]StageDigest, 0, len(keys))
	for _, k := range keys {
		d, err := s.stageDigest(ctx, k, units[k])
		if err != nil {
			return nil, fmt.Errorf("digesting stage %s of run %s: %w", k, runID, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func (s *Store) stageDigest(ctx context.Context, key string, fps []string) (StageDigest, error) {
	d := StageDigest{Key: key, Units: len(fps), Rows: map[string]int{}}
	uh := sha256.New()
	for _, fp := range fps {
		uh.Write([]byte(fp + "\n"))
	}
	d.UnitsSHA256 = hex.EncodeToString(uh.Sum(nil))
	arg, err := json.Marshal(fps)
	if err != nil {
		return d, err
	}
	var lines []string
	for _, q := range digestQueries {
		rows, err := s.r.QueryContext(ctx, q.sql, string(arg))
		if err != nil {
			return d, fmt.Errorf("reading %s: %w", q.table, err)
		}
		for rows.Next() {
			var fp, content string
			if err := rows.Scan(&fp, &content); err != nil {
				rows.Close()
				return d, fmt.Errorf("reading %s: %w", q.table, err)
			}
			lines = append(lines, q.table+"\t"+fp+"\t"+content)
			d.Rows[q.table]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return d, fmt.Errorf("reading %s: %w", q.table, err)
		}
	}
	sort.Strings(lines)
	rh := sha256.New()
	for _, l := range lines {
		rh.Write([]byte(l + "\n"))
	}
	d.RowsSHA256 = hex.EncodeToString(rh.Sum(nil))
	arts, err := s.UnitArtifacts(ctx, fps)
	if err != nil {
		return d, err
	}
	for _, a := range arts {
		name := a.Path
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		d.Artifacts = append(d.Artifacts, ArtifactDigest{Kind: a.Kind, Name: name, SHA256: a.SHA256, Bytes: a.Bytes})
	}
	sort.Slice(d.Artifacts, func(i, j int) bool {
		a, b := d.Artifacts[i], d.Artifacts[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.SHA256 < b.SHA256
	})
	return d, nil
}

// Same reports whether two digests hold the same results (units, rows
// and artifacts).
func (d StageDigest) Same(o StageDigest) bool {
	if d.UnitsSHA256 != o.UnitsSHA256 || d.RowsSHA256 != o.RowsSHA256 || len(d.Artifacts) != len(o.Artifacts) {
		return false
	}
	for i := range d.Artifacts {
		if d.Artifacts[i].SHA256 != o.Artifacts[i].SHA256 {
			return false
		}
	}
	return true
}

// Differences says in words how o differs from d ("" when it does not).
func (d StageDigest) Differences(o StageDigest) string {
	var why []string
	if d.UnitsSHA256 != o.UnitsSHA256 {
		why = append(why, fmt.Sprintf("its units differ (%d vs %d; their inputs changed)", d.Units, o.Units))
	}
	if d.RowsSHA256 != o.RowsSHA256 {
		var tables []string
		for _, t := range digestQueries {
			if d.Rows[t.table] != o.Rows[t.table] {
				tables = append(tables, fmt.Sprintf("%s %d vs %d", t.table, d.Rows[t.table], o.Rows[t.table]))
			}
		}
		if len(tables) == 0 {
			why = append(why, "its result rows hold other values")
		} else {
			why = append(why, "its result rows differ ("+strings.Join(tables, ", ")+")")
		}
	}
	for i := range d.Artifacts {
		if i < len(o.Artifacts) && d.Artifacts[i].SHA256 != o.Artifacts[i].SHA256 {
			why = append(why, fmt.Sprintf("%s %s has sha256 %.12s, not %.12s", d.Artifacts[i].Kind, d.Artifacts[i].Name,
				o.Artifacts[i].SHA256, d.Artifacts[i].SHA256))
		}
	}
	if len(d.Artifacts) != len(o.Artifacts) {
		why = append(why, fmt.Sprintf("%d artifacts, not %d", len(o.Artifacts), len(d.Artifacts)))
	}
	return strings.Join(why, "; ")
}
