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

// TestChooseTokensIsChooseToken draws groups of one to ten sequences with
// ChooseTokens, each with its own logits (some of another length, some
// with no token left or a NaN), parameters and random stream, and checks
// every token, log-prob bit and error against ChooseToken on an equal
// stream: sampling a sequence beside others changes none of its draws.
func TestChooseTokensIsChooseToken(t *testing.T) {
	params := []Params{{Temperature: 0.8}, {Temperature: 1}, {Temperature: 0}, {Temperature: 0.05},
		{Temperature: 0.7, TopK: 40}, {Temperature: 2.5}, {Temperature: 1.1}, {Temperature: -1},
		{Temperature: 0.9, TopP: 0.9}, {Temperature: 1.3}}
	logitsOf := func(s, V int) []float32 {
		lg := make([]float32, V)
		for i := range lg {
			lg[i] = float32((i*7919+s*104729)%1013)/90 - 6
			if (i+s)%17 == 0 {
				lg[i] = float32(math.Inf(-1))
			}
		}
		switch s {
		case 5:
			for i := range lg {
				lg[i] = float32(math.Inf(-1))
			}
		case 7:
			lg[3] = float32(math.NaN())
		}
		return lg
	}
	for n := 1; n <= 10; n++ {
		lgs := make([][]float32, n)
		ps := make([]Params, n)
		r1, r2 := make([]*rand.Rand, n), make([]*rand.Rand, n)
		for s := range n {
			V := 997
			if s == 6 && n%2 == 0 {
				V = 1000 // a vocabulary of another size: no group of four
			}
			lgs[s], ps[s] = logitsOf(s, V), params[s]
			r1[s], r2[s] = rand.New(rand.NewPCG(7, uint64(s))), rand.New(rand.NewPCG(7, uint64(s)))
		}
		toks, lps, errs := make([]int, n), make([]float32, n), make([]error, n)
		for draw := range 50 {
			ChooseTokens(lgs, ps, r1, toks, lps, errs)
			for s := range n {
				want, wantLP, err := ChooseToken(lgs[s], ps[s], r2[s])
				if !errors.Is(errs[s], err) || toks[s] != want || math.Float32bits(lps[s]) != math.Float32bits(wantLP) {
					t.Fatalf("%d sequences, draw %d, sequence %d: %d (%g, %v), alone %d (%g, %v)", n, draw, s, toks[s], lps[s], errs[s], want, wantLP, err)
				}
			}
		}
	}
}
