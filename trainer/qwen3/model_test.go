package qwen3

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func tinyModel(t testing.TB, seed uint64) *Model {
	t.Helper()
	m, err := NewRandom(Tiny(), seed)
	if err != nil {
		t.Fatal(err)
	}
	// Non-trivial norms so a wrong norm placement shows up.
	r := rand.New(rand.NewPCG(seed, 9))
	for k, w := range m.Weights {
		if len(w.Shape) == 1 {
			for i := range w.Data {
				w.Data[i] = 0.5 + r.Float32()
			}
			_ = k
		}
	}
	// Larger weights so attention is far from uniform.
	for _, w := range m.Weights {
		if len(w.Shape) == 2 {
			for i := range w.Data {
				w.Data[i] *= 5
			}
		}
	}
	return m
}

func randomIDs(n, vocab int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 1))
	ids := make([]int, n)
	for i := range ids {
		ids[i] = r.IntN(vocab)
	}
	return ids
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// testAdapter is a fixed random LoRA on q and down of every layer.
type testAdapter struct {
	a, b  map[string]*Tensor
	scale float32
}

func (ta testAdapter) Delta(key string) (*Tensor, *Tensor, float32, bool) {
	a, ok := ta.a[key]
	return a, ta.b[key], ta.scale, ok
}

func newTestAdapter(c Config, r int, seed uint64) testAdapter {
	rng := rand.New(rand.NewPCG(seed, 2))
	ta := testAdapter{a: map[string]*Tensor{}, b: map[string]*Tensor{}, scale: 2}
	for i := 0; i < c.NumHiddenLayers; i++ {
		for _, p := range []Proj{QProj, DownProj} {
			sh := c.ProjShape(p)
			a := &Tensor{Shape: []int{r, sh[1]}, Data: make([]float32, r*sh[1])}
			b := &Tensor{Shape: []int{sh[0], r}, Data: make([]float32, sh[0]*r)}
			for j := range a.Data {
				a.Data[j] = float32(rng.NormFloat64() * 0.1)
			}
			for j := range b.Data {
				b.Data[j] = float32(rng.NormFloat64() * 0.1)
			}
			ta.a[ProjKey(i, p)], ta.b[ProjKey(i, p)] = a, b
		}
	}
	return ta
}

func checkCacheMatchesForward(t *testing.T, m *Model) {
	t.Helper()
	V := m.Config.VocabSize
	ids := randomIDs(17, V, 3)
	ref, err := m.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	c := m.NewCache()
	lg, err := m.Prefill(c, ids[:6])
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(lg, ref.Data[5*V:6*V]); d > 1e-4 {
		t.Fatalf("prefill logits differ by %g", d)
	}
	for i := 6; i < len(ids); i++ {
		lg, err := m.Step(c, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(lg, ref.Data[i*V:(i+1)*V]); d > 1e-4 {
			t.Fatalf("step %d logits differ from the reference by %g", i, d)
		}
	}
	if c.Len() != len(ids) {
		t.Fatalf("cache length %d", c.Len())
	}
}

func TestCacheDecoderEqualsReference(t *testing.T) {
	checkCacheMatchesForward(t, tinyModel(t, 1))
}

func TestCacheDecoderEqualsReferenceWithAdapter(t *testing.T) {
	m := tinyModel(t, 2)
	v, err := m.WithAdapters(newTestAdapter(m.Config, 4, 5))
	if err != nil {
		t.Fatal(err)
	}
	checkCacheMatchesForward(t, v)
	// The adapter changes the output, and the base view is untouched.
	ids := randomIDs(5, m.Config.VocabSize, 4)
	a, _ := m.Forward(ids)
	b, _ := v.Forward(ids)
	if maxDiff(a.Data, b.Data) < 1e-3 {
		t.Fatal("adapter had no effect")
	}
	if len(m.Adapters()) != 0 || len(v.Adapters()) != 1 {
		t.Fatal("adapter lists")
	}
}

func TestUntiedHeadAndMultiGroupGQA(t *testing.T) {
	c := Tiny()
	c.TieWordEmbeddings = false
	c.NumAttentionHeads, c.NumKeyValueHeads, c.NumHiddenLayers = 6, 2, 3
	m, err := NewRandom(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	if m.Head() == m.Weights[EmbedKey] || m.Head() != m.Weights[HeadKey] {
		t.Fatal("untied head not used")
	}
	checkCacheMatchesForward(t, m)
}

func TestStepBatchEqualsSingleSteps(t *testing.T) {
	m := tinyModel(t, 3)
	V := m.Config.VocabSize
	prompts := [][]int{randomIDs(3, V, 10), randomIDs(7, V, 11), randomIDs(1, V, 12)}
	next := [][]int{randomIDs(4, V, 20), randomIDs(4, V, 21), randomIDs(4, V, 22)}
	var batch, single []*Cache
	for _, p := range prompts {
		b, s := m.NewCache(), m.NewCache()
		m.Prefill(b, p)
		m.Prefill(s, p)
		batch, single = append(batch, b), append(single, s)
	}
	for step := 0; step < 4; step++ {
		toks := []int{next[0][step], next[1][step], next[2][step]}
		lgs, err := m.StepBatch(batch, toks)
		if err != nil {
			t.Fatal(err)
		}
		for i := range toks {
			one, _ := m.Step(single[i], toks[i])
			if j, ok := sameBits(lgs[i], one); !ok {
				t.Fatalf("step %d seq %d: logit %d is %v batched, %v alone", step, i, j, lgs[i][j], one[j])
			}
		}
	}
	if _, err := m.StepBatch([]*Cache{batch[0], batch[0]}, []int{1, 2}); err == nil {
		t.Fatal("duplicate cache accepted")
	}
	other := tinyModel(t, 4)
	if _, err := other.Step(batch[0], 1); err == nil {
		t.Fatal("foreign cache accepted")
	}
}

func TestCacheClone(t *testing.T) {
	m := tinyModel(t, 5)
	c := m.NewCache()
	m.Prefill(c, []int{1, 2, 3})
	d := c.Clone()
	a, _ := m.Step(c, 4)
	b, _ := m.Step(d, 4)
	if !slices.Equal(a, b) {
		t.Fatal("clone diverged")
	}
	x, _ := m.Step(c, 5)
	y, _ := m.Step(d, 6)
	if slices.Equal(x, y) {
		t.Fatal("clones share state")
	}
	// Truncating back to the prompt and replaying gives the same logits.
	c.Truncate(3)
	if c.Len() != 3 {
		t.Fatalf("length after truncate %d", c.Len())
	}
	m.Step(c, 4)
	z, _ := m.Step(c, 6)
	if maxDiff(z, y) != 0 {
		t.Fatal("truncate did not restore the prefix")
	}
}

func TestLogProbsMatchForward(t *testing.T) {
	m := tinyModel(t, 6)
	V := m.Config.VocabSize
	prompt, comp := randomIDs(5, V, 30), randomIDs(4, V, 31)
	lp, err := m.LogProbs(prompt, comp, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := m.Forward(append(slices.Clone(prompt), comp...))
	for i, tok := range comp {
		row := ref.Data[(len(prompt)-1+i)*V : (len(prompt)+i)*V]
		want := LogSoftmax(row, 0.7)[tok]
		if math.Abs(float64(lp[i]-want)) > 1e-4 {
			t.Fatalf("token %d: %v, want %v", i, lp[i], want)
		}
		if lp[i] >= 0 {
			t.Fatalf("log-prob %v not negative", lp[i])
		}
	}
}

func TestRejectsBadInput(t *testing.T) {
	m := tinyModel(t, 7)
	if _, err := m.Forward([]int{m.Config.VocabSize}); err == nil {
		t.Fatal("out-of-vocab id accepted")
	}
	if _, err := m.Forward(nil); err == nil {
		t.Fatal("empty sequence accepted")
	}
	w := Weights{}
	for k, v := range m.Weights {
		w[k] = v
	}
	w[ProjKey(1, UpProj)] = &Tensor{Shape: []int{3, 3}, Data: make([]float32, 9)}
	if _, err := New(m.Config, w); err == nil {
		t.Fatal("wrong shape accepted")
	}
	delete(w, ProjKey(1, UpProj))
	if _, err := New(m.Config, w); err == nil {
		t.Fatal("missing weight accepted")
	}
	bad := newTestAdapter(Qwen3_0_6B(), 2, 1)
	if _, err := m.WithAdapters(bad); err == nil {
		t.Fatal("adapter of another shape accepted")
	}
}

func TestNewRandomDeterministic(t *testing.T) {
	a, _ := NewRandom(Tiny(), 42)
	b, _ := NewRandom(Tiny(), 42)
	c, _ := NewRandom(Tiny(), 43)
	k := ProjKey(1, GateProj)
	if !slices.Equal(a.Weights[k].Data, b.Weights[k].Data) || slices.Equal(a.Weights[k].Data, c.Weights[k].Data) {
		t.Fatal("seeding")
	}
	var ss float64
	for _, v := range a.Weights[EmbedKey].Data {
		ss += float64(v) * float64(v)
	}
	std := math.Sqrt(ss / float64(len(a.Weights[EmbedKey].Data)))
	if math.Abs(std-0.02) > 0.001 {
		t.Fatalf("init std %v, want 0.02", std)
	}
}

// One sequence decoding past a long prompt attends with its heads spread
// over the CPUs (the threshold lowered, as a larger model's heads reach
// it) and on one CPU; its logits match the reference forward either way.
func TestLongSingleStepsEqualReference(t *testing.T) {
	m := tinyModel(t, 4)
	V := m.Config.VocabSize
	ids := randomIDs(700, V, 8)
	ref, err := m.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	defer func(w int) { eachRowMinWork = w }(eachRowMinWork)
	for _, minWork := range []int{eachRowMinWork, 1} {
		eachRowMinWork = minWork
		c := m.NewCache()
		if _, err := m.Prefill(c, ids[:697]); err != nil {
			t.Fatal(err)
		}
		for i := 697; i < len(ids); i++ {
			lg, err := m.Step(c, ids[i])
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(lg, ref.Data[i*V:(i+1)*V]); d > 1e-4 {
				t.Fatalf("spread from %d multiply-adds, step at %d: logits differ from the reference by %g", minWork, i, d)
			}
		}
	}
}
