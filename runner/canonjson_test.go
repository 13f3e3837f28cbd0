package runner

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// roundTrip is the canonical form as first defined: json.Marshal of the
// value json.Unmarshal reads into any.
func roundTrip(b []byte) ([]byte, error) {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// canonCases are JSON texts canonicalJSON must write as roundTrip does:
// key order, repeated keys, numbers of every shape, escapes, HTML
// characters, U+2028, invalid UTF-8, an escaped U+FFFD, whitespace.
var canonCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `[]`, `{}`, `""`,
	`{"b":1,"a":2,"c":{"z":[],"y":{}}}`,
	`{"a":1,"a":2,"b":[{"k":"v","k":"w"}]}`,
	`{"é":1,"e":2,"\u00e9x":3,"E":4,"":5}`,
	`[1,1.0,1.50,-2.5e-7,1e21,1e20,123456789012345678,9007199254740993,1E+2,0.000001,0.0000001,-0.0,5e-324,1.7976931348623157e308]`,
	`["a\"b","\\","\/","\b\f\n\r\t","\u0001\u001f","\u003c\u003e\u0026","<>&","\u2028\u2029","` + "\u2028" + `","\ud83d\ude00","\ud800","\ufffd","` + "\xff\xfe" + `","café 😀"]`,
	" { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : null } ",
	`{"turns":[{"speaker":"seeker","text":"I can't sleep; my boss said \"you're done\"."},{"speaker":"supporter","text":"That sounds hard\n"}]}`,
}

func TestCanonicalJSONMatchesRoundTrip(t *testing.T) {
	for i, in := range canonCases {
		checkCanonical(t, i, []byte(in))
	}
	// Values as json.Marshal writes them, the inputs' path.
	type sample struct {
		Zeta  string  `json:"zeta"`
		Alpha float64 `json:"alpha"`
		Turns []any   `json:"turns"`
	}
	for i, v := range []any{
		sample{Zeta: "z", Alpha: 0.1, Turns: []any{1e21, 1.5e-7, int64(123456789012345678), math.Copysign(0, -1), true, nil, "\\", "\xff"}},
		map[string]any{"sample": "esconv-3", "agent": "The Anchor", "context": "Seeker: <b>I & you</b> café 😀\n"},
		json.RawMessage(`{"b": 2, "a": [1, 2.50, {"y": null, "x": "\u003c"}]}`),
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		checkCanonical(t, 100+i, b)
	}
	// The demo's dialogue contexts, whole.
	src, err := os.ReadFile("../experiments/demo/data/esconv.json")
	if err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, 200, src)
	// What json.Unmarshal refuses, canonicalJSON refuses.
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `01`, `1.`, `-`, `1e`, `"a`, "\"\x01\"", `1e400`, `[1] 2`, `tru`, `{"a":1,}`} {
		if _, err := canonicalJSON([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
		if _, err := roundTrip([]byte(bad)); err == nil {
			t.Errorf("%q: the round trip takes it (the case is wrong)", bad)
		}
	}
}

func checkCanonical(t *testing.T, i int, in []byte) {
	t.Helper()
	want, werr := roundTrip(in)
	got, err := canonicalJSON(in)
	if (err != nil) != (werr != nil) {
		t.Fatalf("case %d %.80q: error %v, the round trip's %v", i, in, err, werr)
	}
	if string(got) != string(want) {
		t.Errorf("case %d %.80q:\n got  %s\n want %s", i, in, got, want)
	}
}

// FuzzCanonicalJSON compares canonicalJSON with the round trip on any
// input (go test -fuzz FuzzCanonicalJSON ./runner; the seeds run with the
// tests).
func FuzzCanonicalJSON(f *testing.F) {
	for _, c := range canonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, werr := roundTrip(in)
		got, err := canonicalJSON(in)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q: error %v, the round trip's %v", in, err, werr)
		}
		if string(got) != string(want) {
			t.Fatalf("%q:\n got  %s\n want %s", in, got, want)
		}
	})
}
