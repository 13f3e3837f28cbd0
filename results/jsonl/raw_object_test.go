package jsonl

import (
	"encoding/json"
	"maps"
	"testing"
)

// rawObjects are objects of verbatim values as the store keeps them: the
// engine's user turns and metadata blocks, and the values json.Marshal
// would rewrite (whitespace, HTML characters, U+2028) or refuse.
var rawObjects = []map[string]json.RawMessage{
	{},
	{omitKey: json.RawMessage(`["agent_name"]`), "emotion": json.RawMessage(`"anger"`)},
	{"situation": json.RawMessage(`"I lost my job \u0026 my flat"`), "branch": json.RawMessage(`{"node":0,"children":[1,3],"leaf":false}`)},
	{"user_big_five": json.RawMessage(`null`), "z": json.RawMessage(`1.5e3`), "a<b": json.RawMessage(`true`)},
	{"k": json.RawMessage(`{"a": 1}`)},
	{"k": json.RawMessage(`"<b>"`)},
	{"k": json.RawMessage("\"\u2028\"")},
	{"k": json.RawMessage(`"é ok"`)},
	{"k": json.RawMessage(`[1,2`)},
	{"k": json.RawMessage(``)},
	{"k": nil},
	{"a": json.RawMessage(`1`), "b": json.RawMessage(`2`), "c": json.RawMessage(`3`), "d": json.RawMessage(`4`),
		"e": json.RawMessage(`5`), "f": json.RawMessage(`6`), "g": json.RawMessage(`7`), "h": json.RawMessage(`8`), "i": json.RawMessage(`9`)},
}

// TestAppendRawObjectIsMarshal: where AppendRawObject writes an object,
// its bytes are json.Marshal's; where it declines, it appends nothing; it
// writes the engine's objects itself.
func TestAppendRawObjectIsMarshal(t *testing.T) {
	for i, m := range rawObjects {
		want, werr := json.Marshal(m)
		got, ok := AppendRawObject([]byte("x"), m)
		switch {
		case !ok && string(got) != "x":
			t.Errorf("%d: declined but appended %q", i, got)
		case ok && werr != nil:
			t.Errorf("%d: wrote %q where json.Marshal fails: %v", i, got, werr)
		case ok && string(got[1:]) != string(want):
			t.Errorf("%d: wrote %s, json.Marshal %s", i, got[1:], want)
		}
		if i < 4 && !ok {
			t.Errorf("%d: declined an object it must write: %v", i, m)
		}
	}
}

// TestDecodeRawObjectIsUnmarshal: where DecodeRawObject reads an object it
// reads what json.Unmarshal does, and it reads every object json.Marshal
// writes of the engine's extras.
func TestDecodeRawObjectIsUnmarshal(t *testing.T) {
	texts := []string{`{"a":1,"a":2}`, `{ "a":1}`, `{"a":1} `, `{"a":1,}`, `{"a":01}`, `{"\u00e9":"x"}`,
		"{\"\xff\":1}", "{\"a\x01\":1}", `{"a":"\x01"}`, `[]`, `{}`, `{"a":{"b":[1,{"c":"}"}]}}`, `{"a":nul}`}
	for i, m := range rawObjects {
		if b, err := json.Marshal(m); err == nil {
			texts = append(texts, string(b))
			if i < 4 {
				if _, ok := DecodeRawObject(string(b)); !ok {
					t.Errorf("declined the engine's object %s", b)
				}
			}
		}
	}
	for _, s := range texts {
		checkDecodeRawObject(t, s)
	}
}

func checkDecodeRawObject(t *testing.T, s string) {
	t.Helper()
	got, ok := DecodeRawObject(s)
	if !ok {
		return
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &want); err != nil {
		t.Fatalf("read %q, which json.Unmarshal refuses: %v", s, err)
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("%q: read %v, json.Unmarshal %v", s, got, want)
	}
}

func FuzzDecodeRawObject(f *testing.F) {
	for _, m := range rawObjects {
		if b, err := json.Marshal(m); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`{"a":1,"a":2}`)
	f.Fuzz(func(t *testing.T, s string) {
		checkDecodeRawObject(t, s)
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &m) != nil || m == nil {
			return
		}
		want, werr := json.Marshal(m)
		if got, ok := AppendRawObject(nil, m); ok && (werr != nil || string(got) != string(want)) {
			t.Fatalf("AppendRawObject %s, json.Marshal %s (%v)", got, want, werr)
		}
	})
}
