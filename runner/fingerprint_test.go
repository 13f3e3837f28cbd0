package runner

import (
	"encoding/json"
	"math"
	"testing"
)

// Unit fingerprints are stored: a faster way to compute one must give the
// bytes the original formula, digest of the stage fingerprint and the
// canonical inputs, gave.
func TestUnitFingerprintIsDigestOfStageAndInputs(t *testing.T) {
	type sample struct {
		Zeta  string  `json:"zeta"`
		Alpha float64 `json:"alpha"`
		Turns []any   `json:"turns"`
	}
	inputs := []any{
		map[string]any{"sample": "esconv-3", "agent": "The Anchor", "context": "Seeker: <b>I & you</b> \\u00e9 café 😀\n"},
		sample{Zeta: "z", Alpha: 0.1, Turns: []any{1e21, 1.5e-7, 123456789012345678, math.Copysign(0, -1), true, nil, "\\"}},
		map[string]int{"i": 7},
		[]string{"a", "b"},
		json.RawMessage(`{"b": 2, "a": [1, 2.50, {"y": null, "x": "\\u003c"}]}`),
	}
	for i, in := range inputs {
		b, err := hashInputs(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := digest(map[string]any{"stage": "ab12", "inputs": json.RawMessage(b)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnitFingerprint("ab12", in)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("input %d: fingerprint %s, want %s", i, got, want)
		}
	}
}
