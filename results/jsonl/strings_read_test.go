package jsonl

import (
	"encoding/json"
	"testing"
)

// TestStringsAsJSONReadsThem: every string StringEnd and UnescapeString accept decodes
// as json.Unmarshal decodes it, and what they refuse is a string that
// json.Unmarshal rejects or changes.
func TestStringsAsJSONReadsThem(t *testing.T) {
	for _, c := range []struct {
		quoted string
		ok     bool
	}{
		{`"plain"`, true},
		{`""`, true},
		{`"quote \" back \\ slash \/ end"`, true},
		{`"\b\f\n\r\t"`, true},
		{`"\u00e9\u2028\u0041"`, true},
		{`"naïve ✓"`, true},
		{`"\ud800"`, false},       // a lone surrogate: replaced by json.Unmarshal
		{`"\ud83d\ude00"`, false}, // a pair: joined by json.Unmarshal, refused here
		{"\"tab\there\"", false},  // a control character
		{`"\x41"`, false},         // no such escape
		{`"\u12g4"`, false},       // not hex
		{`"\u12"`, false},         // cut short
		{`"unclosed`, false},
	} {
		testReadString(t, c.quoted, c.ok)
		testReadString(t, []byte(c.quoted), c.ok)
	}
}

func testReadString[T ~string | ~[]byte](t *testing.T, quoted T, ok bool) {
	t.Helper()
	end, closed := StringEnd(quoted, 1)
	got, decoded := "", false
	if closed {
		got, decoded = UnescapeString(quoted[1:end])
	}
	if accepted := closed && decoded && end == len(quoted)-1; accepted != ok {
		t.Errorf("%s: accepted %v, want %v", quoted, accepted, ok)
		return
	}
	if !ok {
		return
	}
	var want string
	if err := json.Unmarshal([]byte(quoted), &want); err != nil || got != want {
		t.Errorf("%s: %q, json.Unmarshal gives %q (%v)", quoted, got, want, err)
	}
}
