package results

import (
	"cmp"
	"fmt"
)

// InsertCandidates inserts candidates and returns their ids, in one
// statement. A prompt that several of them share (the K candidates of a
// unit) is written once, in candidate_prompts (migration 0016).
func (t *Tx) InsertCandidates(cs []Candidate) ([]int64, error) {
	if len(cs) < 2 {
		return insertAll(cs, t.InsertCandidate)
	}
	if len(cs) > maxRowsPerInsert {
		ids, err := t.InsertCandidates(cs[:maxRowsPerInsert])
		if err != nil {
			return nil, err
		}
		more, err := t.InsertCandidates(cs[maxRowsPerInsert:])
		return append(ids, more...), err
	}
	shared := map[string]int64{} // prompt -> candidate_prompts id; 0: seen once
	for _, c := range cs {
		if c.Prompt != "" {
			if _, seen := shared[c.Prompt]; seen {
				shared[c.Prompt] = -1
			} else {
				shared[c.Prompt] = 0
			}
		}
	}
	args := make([]any, 0, 14*len(cs))
	now := any(nowMS())
	// The K candidates of a unit differ in their text and sample index
	// only: each repeated column is boxed into an argument once.
	var unitFP, runID, kind, contextID, persona, modelID, meta lastBoxed
	var sharedID any
	for _, c := range cs {
		prompt, promptID := c.Prompt, any(nil)
		if id := shared[prompt]; id != 0 {
			if id < 0 {
				res, err := t.exec(`INSERT INTO candidate_prompts (unit_fp, prompt) VALUES (?, ?)`, t.fp(c.UnitFP), prompt)
				if err == nil {
					id, err = res.LastInsertId()
				}
				if err != nil {
					return nil, fmt.Errorf("inserting the prompt of candidates %s: %w", c.ContextID, err)
				}
				shared[prompt] = id
			}
			if sharedID == nil || sharedID.(int64) != id {
				sharedID = id
			}
			prompt, promptID = "", sharedID
		}
		var run any // t.run(c.RunID), boxed once
		if r := cmp.Or(c.RunID, t.unit.RunID); r != "" {
			run = runID.of(r)
		}
		fp := unitFP.of(t.fp(c.UnitFP))
		args = append(args, fp, fp, run, kind.of(orDefault(c.Kind, "response")), contextID.of(c.ContextID),
			persona.of(c.Persona), c.SampleIdx, prompt, promptID, c.Text, c.Raw, modelID.of(c.ModelID),
			meta.of(jsonOr(c.Meta, "{}")), now)
	}
	res, err := t.exec(insertCandidatesSQL.text(len(cs)), args...)
	if err != nil {
		return nil, fmt.Errorf("inserting candidates %s: %w", cs[0].ContextID, err)
	}
	last, err := res.LastInsertId()
	if err != nil {
		return nil, fmt.Errorf("inserting candidates %s: %w", cs[0].ContextID, err)
	}
	// The rows of one statement take consecutive ids after the largest
	// one (an INTEGER PRIMARY KEY below its maximum value).
	ids := make([]int64, len(cs))
	for i := range ids {
		ids[i] = last - int64(len(cs)-1-i)
	}
	t.rows += len(cs)
	return ids, nil
}

// maxRowsPerInsert keeps a multi-row statement's parameters well below
// SQLite's limit (32,766).
const maxRowsPerInsert = 500

// candidatePrompt is the SQL of the prompt of the candidate row a: its own,
// or the one it shares (migration 0016).
func candidatePrompt(a string) string {
	return `COALESCE((SELECT cp.prompt FROM candidate_prompts cp WHERE cp.id = ` + a + `.prompt_id), ` + a + `.prompt)`
}

var insertCandidatesSQL = rowsSQL{head: `INSERT INTO candidates (unit_fp, unit_no, run_id, kind, context_id, persona, sample_idx,
	prompt, prompt_id, text, raw, model_id, meta_json, created_at) VALUES `, row: "(?, " + unitNoOf + ", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"}

// unitNoOf is the SQL of the number of the unit whose fingerprint is the
// parameter: candidates are keyed by it (migration 0019). A unit that is
// not there gives NULL, which unit_no refuses.
const unitNoOf = `(SELECT no FROM units WHERE fingerprint = ?)`

// unitNosOf is the SQL of the numbers of the units whose fingerprints the
// query fps lists: candidates are found by them (their unique index leads
// with unit_no), not by unit_fp, which no index of candidates holds.
func unitNosOf(fps string) string {
	return `(SELECT u.no FROM units u WHERE u.fingerprint IN (` + fps + `))`
}

// lastBoxed is a column's last value boxed as a statement argument: rows
// that repeat it share one box (an allocation per string otherwise).
type lastBoxed struct {
	s string
	v any
}

func (b *lastBoxed) of(s string) any {
	if b.v == nil || b.s != s {
		b.s, b.v = s, s
	}
	return b.v
}
