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
		"\u2028\u2029", "é — “quoted” 😀", "\xff\xfe bad", "\xed\xa0\x80 surrogate", "tail\xe2\x80",
		"eight by<eight bytes", "0123456789abcdef\x1f", "0123456\u2028789abcdefgh"} {
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

// TestAppendStringEveryByteEverywhere: each byte value at each place of
// a string longer than two words is written as json.Marshal writes it
// (AppendString skips eight plain bytes at a time).
func TestAppendStringEveryByteEverywhere(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			b := bytes.Repeat([]byte("a"), 20)
			b[at] = byte(c)
			want, _ := json.Marshal(string(b))
			if got := AppendString(nil, string(b)); !bytes.Equal(got, want) {
				t.Fatalf("byte %#x at %d: %s, want %s", c, at, got, want)
			}
		}
	}
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

// TestAppendDirectiveMatchesMarshal: AppendDirective writes json.Marshal's
// bytes of a Directive.
func TestAppendDirectiveMatchesMarshal(t *testing.T) {
	for _, d := range []Directive{{}, {AgentName: "The Anchor", Action: "a\"b<c>&", Tone: "\u2028\xff"}} {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendDirective(nil, d); !bytes.Equal(got, want) {
			t.Errorf("%+v: %s, want %s", d, got, want)
		}
	}
}

// TestAppendSpokenIsMarshal: AppendSpoken writes json.Marshal's bytes of
// an agents_spoken map (the store keeps them).
func TestAppendSpokenIsMarshal(t *testing.T) {
	for _, m := range []map[string]int{{}, {"b": 1, "a": -2, "": 0}, {"The <Anchor> & co": 1 << 40, "\xff\u2028": 3, "é": 1, "e": 2}} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendSpoken(nil, m); !bytes.Equal(got, want) {
			t.Errorf("%v: %s, want %s", m, got, want)
		}
	}
}
