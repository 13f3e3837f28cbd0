package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// pyJSON re-renders a JSON value as Jinja's tojson filter does in
// transformers (Python json.dumps with ensure_ascii=False): ", " and ": "
// separators, keys in their original order, non-ASCII characters kept,
// only '"', '\\' and control characters escaped. Numbers keep their
// original spelling.
func pyJSON(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := writePy(&b, dec); err != nil {
		return "", fmt.Errorf("rendering JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("rendering JSON: trailing data after the value")
	}
	return b.String(), nil
}

func writePy(b *strings.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		isObj := v == '{'
		if isObj {
			b.WriteByte('{')
		} else {
			b.WriteByte('[')
		}
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteString(", ")
			}
			if isObj {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				writePyString(b, k.(string))
				b.WriteString(": ")
			}
			if err := writePy(b, dec); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // closing delimiter
			return err
		}
		if isObj {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	case string:
		writePyString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
	return nil
}

func writePyString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xF])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
