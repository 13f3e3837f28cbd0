package runner

import (
	"encoding/json"
	"math"
	"testing"
)

// TestCanonicalInputsAreHashInputs checks that inputs holding a Canonical
// value encode, for the fingerprint, to the bytes the same inputs with the
// value as a json.RawMessage (or as the Go value it encodes) did: the
// unit fingerprints of stages that hand Canonical values in do not change.
func TestCanonicalInputsAreHashInputs(t *testing.T) {
	raws := append([]string{
		`[{"speaker":"seeker","text":"I can't <sleep> & \u00e9 \u2028"},{"text":"ok","speaker":"supporter"}]`,
		`{"b": 2, "a": [1, 2.50, 1e2, -0, {"y": null, "x": "\u003c"}], "a": "dup"}`,
		`"just a string"`, `12345678901234567890`, `null`, `[]`, `{}`,
	}, canonCases...)
	others := []map[string]any{
		{},
		{"sample": "esconv-3", "agent": "Bo <&>"},
		{"": 1.5, "é": []any{1e21, math.Copysign(0, -1), true, nil}, "a\u2028b": map[string]int{"z": 1, "a": 2}},
		{"zz": struct {
			B string `json:"b"`
			A int    `json:"a"`
		}{"x", 1}},
	}
	for i, raw := range raws {
		if !json.Valid([]byte(raw)) {
			continue
		}
		c, err := CanonicalJSON([]byte(raw))
		if err != nil {
			t.Fatalf("raw %d: %v", i, err)
		}
		for j, other := range others {
			for _, key := range []string{"context", "a", "zzz", "<k>"} {
				withRaw, withC := map[string]any{}, map[string]any{}
				for k, v := range other {
					withRaw[k], withC[k] = v, v
				}
				withRaw[key], withC[key] = json.RawMessage(raw), c
				want, err := hashInputs(withRaw)
				if err != nil {
					t.Fatal(err)
				}
				got, err := hashInputs(withC)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("raw %d, others %d, key %q:\n got  %s\n want %s", i, j, key, got, want)
				}
			}
		}
	}
	if _, err := hashInputs(map[string]any{"context": Canonical(nil)}); err == nil {
		t.Error("an empty Canonical value gave no error")
	}
}

// FuzzCanonicalInputs is TestCanonicalInputsAreHashInputs on any JSON
// value and key (go test -fuzz FuzzCanonicalInputs ./runner).
func FuzzCanonicalInputs(f *testing.F) {
	for _, c := range canonCases {
		f.Add([]byte(c), "context")
	}
	f.Fuzz(func(t *testing.T, raw []byte, key string) {
		c, err := CanonicalJSON(raw)
		if err != nil {
			return
		}
		want, werr := hashInputs(map[string]any{key: json.RawMessage(raw), "sample": "s"})
		got, err := hashInputs(map[string]any{key: c, "sample": "s"})
		if (err != nil) != (werr != nil) || string(got) != string(want) {
			t.Fatalf("%q %q:\n got  %s %v\n want %s %v", raw, key, got, err, want, werr)
		}
	})
}
