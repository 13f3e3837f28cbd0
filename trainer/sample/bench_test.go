package sample

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkChooseTokens samples eight sequences over a 49,152-token
// vocabulary of random logits at temperature 0.8, in two groups of four
// as the serve engine calls ChooseTokens (drawGroup), and reports the
// time per token. The logits stay the same across iterations; the draws
// go on along each sequence's stream, so the drawn token, and with it
// how far a draw walks, varies.
func BenchmarkChooseTokens(b *testing.B) {
	const seqs, vocab, group = 8, 49152, 4
	r := rand.New(rand.NewPCG(1, 2))
	lgs := make([][]float32, seqs)
	ps := make([]Params, seqs)
	rs := make([]*rand.Rand, seqs)
	for s := range lgs {
		lgs[s] = make([]float32, vocab)
		for i := range lgs[s] {
			lgs[s][i] = float32(r.NormFloat64() * 2)
		}
		ps[s] = Params{Temperature: 0.8}
		rs[s] = rand.New(rand.NewPCG(3, uint64(s)))
	}
	toks, lps, errs := make([]int, seqs), make([]float32, seqs), make([]error, seqs)
	for b.Loop() {
		for lo := 0; lo < seqs; lo += group {
			hi := lo + group
			ChooseTokens(lgs[lo:hi], ps[lo:hi], rs[lo:hi], toks[lo:hi], lps[lo:hi], errs[lo:hi])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*seqs), "ns/token")
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
