package results

import (
	"bytes"
	"encoding/json"

	"mascot.dev/mascot/results/jsonl"
)

// rowEncodings remembers the JSON of values that repeat from row to row
// in a bulk insertion: an import's episodes share their metadata, and its
// directives come from few agents, actions and tones. A nil one encodes
// every value afresh.
type rowEncodings struct {
	metas      []metaEncoding // the last maxMetas distinct metadata blocks
	nextMeta   int            // the entry the next new block replaces
	directives map[jsonl.Directive]string
}

// metaEncoding is a metadata block's JSON, by its fields and extras.
type metaEncoding struct {
	key   [8]string
	extra map[string]json.RawMessage // a copy
	json  string
}

// maxDirectives bounds rowEncodings.directives; maxMetas the metadata
// blocks remembered (an import's episodes alternate between a few
// systems, each with its own block).
const (
	maxDirectives = 4096
	maxMetas      = 16
)

// metadata returns jsonl.EncodeMetadata(m) as a string.
func (r *rowEncodings) metadata(m jsonl.Metadata) (string, error) {
	key := [8]string{m.SchemaVersion, m.System, m.Dataset, m.PersonaSet, m.DirectorModel, m.SpeakerModel,
		m.UserModel, m.RubricVersion}
	if r != nil {
		for i := range r.metas {
			if e := &r.metas[i]; e.key == key && sameExtra(m.Extra, e.extra) {
				return e.json, nil
			}
		}
	}
	b, err := jsonl.EncodeMetadata(m)
	if err != nil {
		return "", err
	}
	if r != nil {
		e := metaEncoding{key, cloneExtra(m.Extra), string(b)}
		if len(r.metas) < maxMetas {
			r.metas = append(r.metas, e)
		} else {
			r.metas[r.nextMeta] = e
			r.nextMeta = (r.nextMeta + 1) % maxMetas
		}
	}
	return string(b), nil
}

// cloneExtra copies extra keys, their bytes included (the caller may
// change its map or slices later).
func cloneExtra(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[k] = bytes.Clone(v)
	}
	return c
}

// sameExtra says two sets of extra keys hold the same keys with the same
// bytes (so they encode the same).
func sameExtra(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
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
