package jsonl

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString checks that the codec's string writer produces
// exactly json.Marshal's bytes (escapes, HTML-safe characters, line
// separators, invalid UTF-8), so the faster export writes the same file.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\s`, "\b\f\n\r\t\x00\x01\x1f\x7f", "<a>&amp;",
		"\u2028\u2029", "é — “quoted” 😀", "\xff\xfe bad", "\xed\xa0\x80 surrogate", "tail\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestWriteValueMatchesMarshal checks the reflection-free cases of
// writeValue against json.Marshal.
func TestWriteValueMatchesMarshal(t *testing.T) {
	for _, v := range []any{"x<y>", -42, 0, &Directive{AgentName: "The Anchor", Action: "a\"b", Tone: "<calm>"},
		(*Directive)(nil), map[string]int{"b": 2, "a": 1, "é&": -3}, map[string]int{}, map[string]int(nil)} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := writeValue(&buf, "k", v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("writeValue(%#v) = %s, want %s", v, buf.Bytes(), want)
		}
	}
}
