package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
)

// field is one key of an ordered JSON object.
type field struct {
	key string
	val any
}

// writeObject writes fields in order, then extra's other keys sorted. An
// extra value replaces a field of the same key; keys listed under omitKey
// are left out. Values are written as json.Marshal writes them.
func writeObject(buf *bytes.Buffer, fields []field, extra map[string]json.RawMessage) error {
	var omit []string
	if raw, ok := extra[omitKey]; ok {
		if err := json.Unmarshal(raw, &omit); err != nil {
			return fmt.Errorf("decoding %s: %w", omitKey, err)
		}
	}
	buf.WriteByte('{')
	n := 0
	put := func(k string, v any) error {
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		buf.Write(append(AppendString(buf.AvailableBuffer(), k), ':'))
		return writeValue(buf, k, v)
	}
	for _, f := range fields {
		if slices.Contains(omit, f.key) {
			continue
		}
		v := f.val
		if e, ok := extra[f.key]; ok {
			v = e
		}
		if err := put(f.key, v); err != nil {
			return err
		}
	}
	if len(extra) == 0 {
		buf.WriteByte('}')
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if k != omitKey && !slices.ContainsFunc(fields, func(f field) bool { return f.key == k }) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := put(k, extra[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeValue writes one value of an object: raw JSON verbatim, a writer
// function's output, the record codec's own types without reflection, and
// anything else through json.Marshal.
func writeValue(buf *bytes.Buffer, k string, v any) error {
	switch x := v.(type) {
	case json.RawMessage:
		buf.Write(x)
	case func(*bytes.Buffer) error:
		return x(buf)
	case string:
		buf.Write(AppendString(buf.AvailableBuffer(), x))
	case int:
		buf.Write(appendJSONInt(buf.AvailableBuffer(), x))
	case *Directive:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		b := append(buf.AvailableBuffer(), `{"agent_name":`...)
		b = append(AppendString(b, x.AgentName), `,"action":`...)
		b = append(AppendString(b, x.Action), `,"tone":`...)
		buf.Write(append(AppendString(b, x.Tone), '}'))
	case map[string]int:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		b := append(buf.AvailableBuffer(), '{')
		for i, name := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendString(b, name), ':')
			b = appendJSONInt(b, x[name])
		}
		buf.Write(append(b, '}'))
	default:
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", k, err)
		}
		buf.Write(vb)
	}
	return nil
}

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
