package jsonl

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendFloatIsJSONMarshal: AppendFloat writes the bytes
// encoding/json writes for a float64, at the edges of its two formats and
// for random bit patterns.
func TestAppendFloatIsJSONMarshal(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1.5e-9, 1e20, 1e21,
		-1e21, 123456789012345678901234.0, 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64, 0.7, 2.5e-10}
	r := rand.New(rand.NewPCG(1, 2))
	for len(vals) < 20000 {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			vals = append(vals, f)
		}
	}
	for _, f := range vals {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendFloat([]byte("x"), f); string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("AppendFloat(%v) = %s, json.Marshal = %s", f, got, want)
		}
	}
}
