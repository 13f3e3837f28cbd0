package results

import "mascot.dev/mascot/results/jsonl"

// rowEncodings remembers the JSON of values that repeat from row to row
// in a bulk insertion: an import's episodes share their metadata, and its
// directives come from few agents, actions and tones. A nil one encodes
// every value afresh.
type rowEncodings struct {
	metaKey    [8]string
	metaJSON   string
	directives map[jsonl.Directive]string
}

// maxDirectives bounds rowEncodings.directives.
const maxDirectives = 4096

// metadata returns jsonl.EncodeMetadata(m) as a string.
func (r *rowEncodings) metadata(m jsonl.Metadata) (string, error) {
	key := [8]string{m.SchemaVersion, m.System, m.Dataset, m.PersonaSet, m.DirectorModel, m.SpeakerModel,
		m.UserModel, m.RubricVersion}
	if r != nil && len(m.Extra) == 0 && r.metaJSON != "" && key == r.metaKey {
		return r.metaJSON, nil
	}
	b, err := jsonl.EncodeMetadata(m)
	if err != nil {
		return "", err
	}
	if r != nil && len(m.Extra) == 0 {
		r.metaKey, r.metaJSON = key, string(b)
	}
	return string(b), nil
}

// directive returns a directive's JSON, json.Marshal's bytes.
func (r *rowEncodings) directive(d jsonl.Directive) string {
	if r == nil {
		return string(jsonl.AppendDirective(nil, d))
	}
	if s, ok := r.directives[d]; ok {
		return s
	}
	s := string(jsonl.AppendDirective(nil, d))
	if r.directives == nil {
		r.directives = make(map[jsonl.Directive]string)
	}
	if len(r.directives) < maxDirectives {
		r.directives[d] = s
	}
	return s
}
