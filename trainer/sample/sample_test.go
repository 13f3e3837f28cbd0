package sample

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

func model(t testing.TB) *qwen3.Model {
	t.Helper()
	m, err := qwen3.NewRandom(qwen3.Tiny(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Sharper distributions than the 0.02 init gives.
	for _, w := range m.Weights {
		if len(w.Shape) == 2 {
			for i := range w.Data {
				w.Data[i] *= 8
			}
		}
	}
	return m
}

var prompt = []int{10, 20, 30, 40}

func TestGreedyFollowsReferenceArgmax(t *testing.T) {
	m := model(t)
	r, err := Generate(context.Background(), m, prompt, Params{MaxTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tokens) != 8 || r.FinishReason != FinishLength {
		t.Fatalf("%+v", r)
	}
	V := m.Config.VocabSize
	seq := slices.Clone(prompt)
	for i, tok := range r.Tokens {
		lg, _ := m.Forward(seq)
		last := lg.Data[(len(seq)-1)*V:]
		best := 0
		for j, v := range last {
			if v > last[best] {
				best = j
			}
		}
		if best != tok {
			t.Fatalf("token %d: sampled %d, reference argmax %d", i, tok, best)
		}
		if want := qwen3.LogSoftmax(last, 1)[tok]; math.Abs(float64(want-r.LogProbs[i])) > 1e-4 {
			t.Fatalf("log-prob %v, want %v", r.LogProbs[i], want)
		}
		seq = append(seq, tok)
	}
}

func TestSeedDeterminismAndLogProbs(t *testing.T) {
	m := model(t)
	p := Params{Temperature: 1.3, TopP: 0.95, TopK: 50, Seed: 7, MaxTokens: 20}
	a, _ := Generate(context.Background(), m, prompt, p)
	b, _ := Generate(context.Background(), m, prompt, p)
	if !slices.Equal(a.Tokens, b.Tokens) || !slices.Equal(a.LogProbs, b.LogProbs) {
		t.Fatal("same seed, different output")
	}
	p.Seed = 8
	c, _ := Generate(context.Background(), m, prompt, p)
	if slices.Equal(a.Tokens, c.Tokens) {
		t.Fatal("different seeds gave identical 20-token samples")
	}
	// The reported log-probs are TRL's: log softmax(logits/T) of the model.
	want, err := m.LogProbs(prompt, a.Tokens, 1.3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(want[i]-a.LogProbs[i])) > 1e-4 {
			t.Fatalf("token %d log-prob %v, recomputed %v", i, a.LogProbs[i], want[i])
		}
	}
}

func TestGenerateNAndBatch(t *testing.T) {
	m := model(t)
	p := Params{Temperature: 1, Seed: 3, MaxTokens: 12}
	rs, err := GenerateN(context.Background(), m, prompt, 4, p)
	if err != nil || len(rs) != 4 {
		t.Fatal(rs, err)
	}
	again, _ := GenerateN(context.Background(), m, prompt, 4, p)
	distinct := map[string]bool{}
	for i := range rs {
		if !slices.Equal(rs[i].Tokens, again[i].Tokens) {
			t.Fatal("GenerateN not deterministic")
		}
		distinct[string(rune(rs[i].Tokens[0]))+string(rune(rs[i].Tokens[1]))+string(rune(rs[i].Tokens[2]))] = true
		// Each batched sequence matches the model's own log-probs.
		lp, _ := m.LogProbs(prompt, rs[i].Tokens, 1)
		for j := range lp {
			if math.Abs(float64(lp[j]-rs[i].LogProbs[j])) > 1e-4 {
				t.Fatalf("seq %d token %d: %v vs %v", i, j, rs[i].LogProbs[j], lp[j])
			}
		}
	}
	if len(distinct) < 2 {
		t.Fatal("4 samples all identical")
	}
	// Greedy batch of different prompts equals greedy one by one.
	prompts := [][]int{{1, 2, 3}, {4}, {5, 6, 7, 8, 9}}
	batch, err := GenerateBatch(context.Background(), m, prompts, Params{MaxTokens: 6})
	if err != nil {
		t.Fatal(err)
	}
	for i, pr := range prompts {
		one, _ := Generate(context.Background(), m, pr, Params{MaxTokens: 6})
		if !slices.Equal(one.Tokens, batch[i].Tokens) {
			t.Fatalf("prompt %d: batch %v, single %v", i, batch[i].Tokens, one.Tokens)
		}
	}
}

func TestStopTokensAndProcessor(t *testing.T) {
	m := model(t)
	const stopTok = 257
	var steps []int
	force := func(step int, gen []int, lg []float32) {
		steps = append(steps, step)
		if len(gen) != step {
			t.Errorf("step %d with %d generated tokens", step, len(gen))
		}
		for i := range lg {
			lg[i] = float32(math.Inf(-1))
		}
		if step < 3 {
			lg[65+step] = 0 // allow exactly one token: 'A'+step
		} else {
			lg[stopTok] = 0
		}
	}
	r, err := Generate(context.Background(), m, prompt, Params{Temperature: 1, Seed: 1, MaxTokens: 50,
		StopTokens: []int{stopTok}, Processor: force})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Tokens, []int{65, 66, 67, stopTok}) || r.FinishReason != FinishStop {
		t.Fatalf("tokens %v finish %s", r.Tokens, r.FinishReason)
	}
	for _, lp := range r.LogProbs {
		if lp != 0 { // the only allowed token has probability 1
			t.Fatalf("log-probs %v", r.LogProbs)
		}
	}
	if !slices.Equal(steps, []int{0, 1, 2, 3}) {
		t.Fatalf("processor steps %v", steps)
	}
	maskAll := func(_ int, _ []int, lg []float32) {
		for i := range lg {
			lg[i] = float32(math.Inf(-1))
		}
	}
	if _, err := Generate(context.Background(), m, prompt, Params{Temperature: 1, MaxTokens: 3, Processor: maskAll}); err == nil {
		t.Fatal("all-masked logits accepted")
	}
	if _, err := Generate(context.Background(), m, prompt, Params{}); err == nil {
		t.Fatal("MaxTokens 0 accepted")
	}
}

func draws(t *testing.T, logits []float32, p Params, n int) map[int]int {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	count := map[int]int{}
	for i := 0; i < n; i++ {
		tok, _, err := choose(slices.Clone(logits), p, r)
		if err != nil {
			t.Fatal(err)
		}
		count[tok]++
	}
	return count
}

func TestTopKTopP(t *testing.T) {
	probs := []float64{0.5, 0.3, 0.15, 0.05}
	lg := make([]float32, len(probs))
	for i, p := range probs {
		lg[i] = float32(math.Log(p))
	}
	const n = 20000
	all := draws(t, lg, Params{Temperature: 1}, n)
	if len(all) != 4 || math.Abs(float64(all[3])/n-0.05) > 0.01 {
		t.Fatalf("untruncated counts %v", all)
	}
	k2 := draws(t, lg, Params{Temperature: 1, TopK: 2}, n)
	if len(k2) != 2 || k2[0]+k2[1] != n || math.Abs(float64(k2[0])/n-0.625) > 0.015 {
		t.Fatalf("top-k 2 counts %v", k2)
	}
	p7 := draws(t, lg, Params{Temperature: 1, TopP: 0.7}, n)
	if len(p7) != 2 || p7[2]+p7[3] != 0 {
		t.Fatalf("top-p 0.7 counts %v", p7)
	}
	p85 := draws(t, lg, Params{Temperature: 1, TopP: 0.85}, n)
	if len(p85) != 3 || p85[3] != 0 {
		t.Fatalf("top-p 0.85 counts %v", p85)
	}
	// top-p after top-k uses the renormalised survivors: among {0,1} token 0
	// has 0.625, so p=0.6 keeps only token 0.
	kp := draws(t, lg, Params{Temperature: 1, TopK: 2, TopP: 0.6}, 1000)
	if len(kp) != 1 || kp[0] != 1000 {
		t.Fatalf("top-k then top-p counts %v", kp)
	}
	// Low temperature sharpens, top-k 1 is greedy.
	if c := draws(t, lg, Params{Temperature: 5, TopK: 1}, 100); c[0] != 100 {
		t.Fatalf("top-k 1 counts %v", c)
	}
	cold := draws(t, lg, Params{Temperature: 0.2}, n)
	if float64(cold[0])/n < 0.9 {
		t.Fatalf("T=0.2 counts %v", cold)
	}
	// Reported log-prob is before truncation: log(0.5) even with top-k 1.
	_, lp, _ := choose(slices.Clone(lg), Params{Temperature: 1, TopK: 1}, rand.New(rand.NewPCG(0, 0)))
	if math.Abs(float64(lp)-math.Log(0.5)) > 1e-6 {
		t.Fatalf("log-prob %v", lp)
	}
}

// A prompt longer than PrefillChunk is prefilled in chunks: the logits
// equal one whole prefill's, and a cancelled context stops it before any
// token is sampled.
func TestLongPromptPrefillsInChunks(t *testing.T) {
	m := model(t)
	rng := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int, 2*PrefillChunk+17)
	for i := range prompt {
		prompt[i] = rng.IntN(m.Config.VocabSize)
	}
	c := m.NewCache()
	want, err := m.Prefill(c, prompt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := prefill(context.Background(), m, m.NewCache(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-4 {
			t.Fatalf("logit %d: chunked %v, whole %v", i, got[i], want[i])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerateN(ctx, m, prompt, 2, Params{MaxTokens: 4}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sampling returned %v", err)
	}
}
