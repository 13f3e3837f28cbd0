package sample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
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
// with no token left or a NaN, some shorter than a block or a whole
// number of blocks), parameters and random stream, and checks
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
			V := 997 // not a whole number of blocks
			switch {
			case s == 6 && n%2 == 0:
				V = 1000 // a vocabulary of another size: no group of four
			case s == 8 && n%3 == 0:
				V = 40 // shorter than a block
			case s == 9 && n == 10:
				V = 16 * block
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

// TestChooseOverEveryTokenIsLogSoftmax: Choose's distribution over every
// token, drawn without normalising, is LogSoftmax's, bit for bit, and its
// token's log-prob is the distribution's entry.
func TestChooseOverEveryTokenIsLogSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, V := range []int{1, 40, 64, 997, 4096} {
		lg := make([]float32, V)
		for i := range lg {
			lg[i] = float32(r.NormFloat64() * 3)
			if i%13 == 5 {
				lg[i] = float32(math.Inf(-1))
			}
		}
		for _, temp := range []float32{0.3, 0.8, 1.5, -1} {
			tok, lp, dist, err := Choose(lg, Params{Temperature: temp}, r)
			if err != nil {
				t.Fatal(err)
			}
			want := qwen3.LogSoftmax(lg, temp)
			for i := range want {
				if math.Float32bits(dist[i]) != math.Float32bits(want[i]) {
					t.Fatalf("V %d, T %v, token %d: log-prob %v, LogSoftmax %v", V, temp, i, dist[i], want[i])
				}
			}
			if math.Float32bits(lp) != math.Float32bits(dist[tok]) || math.IsInf(float64(lp), -1) {
				t.Fatalf("V %d, T %v: drew %d with log-prob %v, its entry %v", V, temp, tok, lp, dist[tok])
			}
		}
	}
}

// TestChooseTokensEdges: with every token but one masked the draw is that
// token; tokens masked at the ends of the vocabulary, across whole
// blocks, are never drawn; equal logits are all drawn, none of them
// masked; Choose and ChooseTokens agree on all of it.
func TestChooseTokensEdges(t *testing.T) {
	inf := float32(math.Inf(-1))
	masked := func(n int, keep func(i int) bool) []float32 {
		lg := make([]float32, n)
		for i := range lg {
			lg[i] = inf
			if keep(i) {
				lg[i] = float32(i%3) / 4
			}
		}
		return lg
	}
	type edge struct {
		name  string
		lg    []float32
		drawn func(i int) bool
	}
	var edges []edge
	for _, n := range []int{1, 63, 64, 65, 3*block + 17} {
		for _, at := range []int{0, n / 2, n - 1} {
			edges = append(edges, edge{fmt.Sprintf("only token %d of %d", at, n),
				masked(n, func(i int) bool { return i == at }), func(i int) bool { return i == at }})
		}
	}
	ends := func(i int) bool { return i >= 2*block+3 && i < 5*block-1 }
	edges = append(edges, edge{"masked ends", masked(7*block+9, ends), ends})
	ties := make([]float32, 3*block+5)
	edges = append(edges, edge{"ties", ties, func(int) bool { return true }})
	for _, c := range edges {
		seen := map[int]bool{}
		r1, r2 := rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(4, 4))
		for d := range 4000 {
			want, wantLP, _, err1 := Choose(c.lg, Params{Temperature: 0.9}, r1)
			toks, lps, errs := []int{0}, []float32{0}, []error{nil}
			ChooseTokens([][]float32{c.lg}, []Params{{Temperature: 0.9}}, []*rand.Rand{r2}, toks, lps, errs)
			if err1 != nil || errs[0] != nil {
				t.Fatalf("%s, draw %d: errors %v, %v", c.name, d, err1, errs[0])
			}
			if toks[0] != want || math.Float32bits(lps[0]) != math.Float32bits(wantLP) {
				t.Fatalf("%s, draw %d: ChooseTokens %d (%v), Choose %d (%v)", c.name, d, toks[0], lps[0], want, wantLP)
			}
			if !c.drawn(want) {
				t.Fatalf("%s, draw %d: drew masked token %d", c.name, d, want)
			}
			seen[want] = true
		}
		for i := range c.lg {
			if c.drawn(i) && !seen[i] {
				t.Fatalf("%s: token %d never drawn in 4000 draws", c.name, i)
			}
		}
	}
}
