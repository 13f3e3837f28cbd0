package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestChooseTokenIsChoose draws many tokens with ChooseToken and Choose
// from equal random streams, over temperatures, masked (−Inf) logits,
// top-k and top-p (which take Choose's path), and checks the same token
// and the same log-prob bits every time, and the same error where every
// token is masked or a logit is NaN.
func TestChooseTokenIsChoose(t *testing.T) {
	const V = 997
	logits := make([]float32, V)
	for i := range logits {
		logits[i] = float32((i*7919)%1013)/90 - 6
		if i%17 == 0 {
			logits[i] = float32(math.Inf(-1))
		}
	}
	params := []Params{{Temperature: 0.8}, {Temperature: 1}, {Temperature: 0.05}, {Temperature: 2.5},
		{Temperature: 0}, {Temperature: 0.7, TopK: 40}, {Temperature: 0.9, TopP: 0.9}, {Temperature: 1, TopK: V}}
	for _, p := range params {
		r1, r2 := rand.New(rand.NewPCG(7, 1)), rand.New(rand.NewPCG(7, 1))
		for n := range 300 {
			want, wantLP, _, err1 := Choose(logits, p, r1)
			got, gotLP, err2 := ChooseToken(logits, p, r2)
			if err1 != nil || err2 != nil {
				t.Fatalf("%+v draw %d: errors %v, %v", p, n, err1, err2)
			}
			if got != want || math.Float32bits(gotLP) != math.Float32bits(wantLP) {
				t.Fatalf("%+v draw %d: token %d (log-prob %g), Choose gives %d (%g)", p, n, got, gotLP, want, wantLP)
			}
		}
	}
	bad := [][]float32{{float32(math.Inf(-1)), float32(math.Inf(-1))}, {1, float32(math.NaN()), 2}, {1, float32(math.Inf(1))}}
	for _, lg := range bad {
		_, _, _, err1 := Choose(lg, Params{Temperature: 0.8}, rand.New(rand.NewPCG(1, 1)))
		_, _, err2 := ChooseToken(lg, Params{Temperature: 0.8}, rand.New(rand.NewPCG(1, 1)))
		if !errors.Is(err1, ErrNoToken) || !errors.Is(err2, ErrNoToken) {
			t.Fatalf("%v: Choose %v, ChooseToken %v, want ErrNoToken from both", lg, err1, err2)
		}
	}
}
