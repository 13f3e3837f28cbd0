package datasets

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"

	"mascot.dev/mascot/internal/labels"
)

// jsonlLine is Sample's own JSON plus the conv_id spelling.
type jsonlLine struct {
	Sample
	ConvID string `json:"conv_id"`
}

// jsonlKnown are the keys jsonlLine decodes; other scalar keys go to Meta.
var jsonlKnown = map[string]bool{
	"id": true, "conv_id": true, "dataset": true, "emotion": true, "valence": true,
	"situation": true, "problem": true, "domain": true, "meeting": true, "query": true,
	"answer": true, "start_idx": true, "context": true, "meta": true,
}

// loadJSONL reads one sample per line: Sample's JSON form, or
// {conv_id, context: [{speaker, text}], ...}. Lines without an id are
// numbered "<file stem>-<line index>"; unknown scalar fields are kept in
// Meta as strings; a missing valence is derived from the emotion.
func loadJSONL(fsys fs.FS, file string) ([]Sample, error) {
	stem := fileStem(file)
	var out []Sample
	err := eachLine(fsys, file, func(n int, line []byte) error {
		var l jsonlLine
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("decoding sample: %w", err)
		}
		s := l.Sample
		s.ID = firstNonEmpty(s.ID, l.ConvID, fmt.Sprintf("%s-%d", stem, n-1))
		s.Dataset = firstNonEmpty(s.Dataset, JSONL)
		if len(s.Context) == 0 {
			return fmt.Errorf("sample %s has no context turns", s.ID)
		}
		if s.Valence == "" {
			s.Valence = labels.ValenceOf(s.Emotion)
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(line, &all); err != nil {
			return fmt.Errorf("decoding sample: %w", err)
		}
		for k, raw := range all {
			if jsonlKnown[k] {
				continue
			}
			if v, ok := scalarString(raw); ok {
				if s.Meta == nil {
					s.Meta = map[string]string{}
				}
				s.Meta[k] = v
			}
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// scalarString renders a JSON string, number or bool as text.
func scalarString(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
