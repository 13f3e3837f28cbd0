package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// diffExtra compares an original object with what the encoder produced from
// its decoded form and returns the extras that make the encoding exact:
// differing or unknown keys verbatim, and missing keys under omitKey.
func diffExtra(orig map[string]json.RawMessage, encoded []byte) (map[string]json.RawMessage, error) {
	var enc map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &enc); err != nil {
		return nil, fmt.Errorf("re-reading encoded object: %w", err)
	}
	extra := map[string]json.RawMessage{}
	for k, v := range orig {
		if e, ok := enc[k]; !ok || !jsonEqual(e, v) {
			extra[k] = v
		}
	}
	var omit []string
	for k := range enc {
		if _, ok := orig[k]; !ok {
			omit = append(omit, k)
		}
	}
	if len(omit) > 0 {
		sort.Strings(omit)
		b, _ := json.Marshal(omit)
		extra[omitKey] = b
	}
	if len(extra) == 0 {
		return nil, nil
	}
	return extra, nil
}

// jsonEqual compares two JSON texts as values (key order and number
// spelling ignored).
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) { // the usual case, and far cheaper than decoding
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}
