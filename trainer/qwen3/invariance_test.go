package qwen3

import (
	"math"
	"testing"
)

// invSeq is one sequence of the batch-invariance tests: its view, its
// prompt, the tokens it then decodes (forced), the pass at which it
// arrives and the block size its prompt is prefilled in.
type invSeq struct {
	view   *Model
	prompt []int
	next   []int
	start  int
	block  int
}

// alone decodes s by itself: one Prefill of the whole prompt, then one
// Step per token. It returns the logits after the prompt and after each
// decoded token.
func (s invSeq) alone(t *testing.T) [][]float32 {
	t.Helper()
	c := s.view.NewCache()
	lg, err := s.view.Prefill(c, s.prompt)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float32{lg}
	for _, id := range s.next {
		if lg, err = s.view.Step(c, id); err != nil {
			t.Fatal(err)
		}
		out = append(out, lg)
	}
	return out
}

// together runs every sequence through shared Extend passes, as the
// engine's scheduler does: a sequence joins at its start pass, prefills
// its prompt in blocks while the others decode, then decodes one token per
// pass; it leaves when done. It returns each sequence's logits as alone.
func together(t *testing.T, base *Model, seqs []invSeq) [][][]float32 {
	t.Helper()
	caches := make([]*Cache, len(seqs))
	fed := make([]int, len(seqs)) // prompt tokens prefilled
	dec := make([]int, len(seqs)) // next tokens fed
	out := make([][][]float32, len(seqs))
	for pass := 0; ; pass++ {
		var chunks []Chunk
		var who []int
		for i, s := range seqs {
			if pass < s.start || dec[i] == len(s.next) && out[i] != nil {
				continue
			}
			if caches[i] == nil {
				caches[i] = s.view.NewCache()
			}
			if fed[i] < len(s.prompt) {
				n := min(s.block, len(s.prompt)-fed[i])
				chunks = append(chunks, Chunk{Cache: caches[i], Tokens: s.prompt[fed[i] : fed[i]+n], Logits: fed[i]+n == len(s.prompt)})
				fed[i] += n
			} else {
				chunks = append(chunks, Chunk{Cache: caches[i], Tokens: s.next[dec[i] : dec[i]+1], Logits: true})
				dec[i]++
			}
			who = append(who, i)
		}
		if len(chunks) == 0 {
			if pass > 1000 {
				t.Fatal("passes never ended")
			}
			done := true
			for i, s := range seqs {
				done = done && (pass >= s.start && out[i] != nil && dec[i] == len(s.next))
			}
			if done {
				return out
			}
			continue
		}
		lgs, err := base.Extend(chunks)
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range who {
			if chunks[k].Logits {
				out[i] = append(out[i], lgs[k])
			} else if lgs[k] != nil {
				t.Fatalf("pass %d: logits returned for a chunk that did not ask", pass)
			}
		}
	}
}

func sameBits(a, b []float32) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i, false
		}
	}
	return 0, true
}

// TestExtendIsBatchInvariant decodes eight sequences of different
// lengths, arrival passes, prefill blocks and views (base and two
// adapters) together, and checks every logit of every sequence against the
// same sequence decoded alone, bit for bit, with every kernel family this
// CPU runs.
func TestExtendIsBatchInvariant(t *testing.T) {
	m := tinyModel(t, 11)
	a1, err := m.WithAdapters(newTestAdapter(m.Config, 4, 6))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := m.WithAdapters(newTestAdapter(m.Config, 8, 7))
	if err != nil {
		t.Fatal(err)
	}
	V := m.Config.VocabSize
	views := []*Model{m, m, a1, m, a2, m, a1, m}
	for _, fma := range kernelFamilies(t) {
		useKernels(fma)
		var seqs []invSeq
		for i, v := range views {
			seqs = append(seqs, invSeq{view: v, prompt: randomIDs(3+7*i%23, V, uint64(100+i)),
				next: randomIDs(4+3*i%9, V, uint64(200+i)), start: (5 * i) % 11, block: 1 + i%5})
		}
		got := together(t, m, seqs)
		for i, s := range seqs {
			want := s.alone(t)
			if len(got[i]) != len(want) {
				t.Fatalf("kernels %s seq %d: %d logit rows together, %d alone", fma, i, len(got[i]), len(want))
			}
			for k := range want {
				if j, ok := sameBits(got[i][k], want[k]); !ok {
					t.Fatalf("kernels %s seq %d (prompt %d, block %d, start %d) step %d: logit %d is %v together, %v alone",
						fma, i, len(s.prompt), s.block, s.start, k, j, got[i][k][j], want[k][j])
				}
			}
		}
	}
}

func TestExtendRejectsMixedModels(t *testing.T) {
	m, other := tinyModel(t, 12), tinyModel(t, 13)
	c, d := m.NewCache(), other.NewCache()
	for _, tc := range []struct {
		name   string
		chunks []Chunk
	}{
		{"foreign cache", []Chunk{{Cache: c, Tokens: []int{1}}, {Cache: d, Tokens: []int{1}}}},
		{"cache twice", []Chunk{{Cache: c, Tokens: []int{1}}, {Cache: c, Tokens: []int{2}}}},
		{"no tokens", []Chunk{{Cache: c}}},
		{"bad token", []Chunk{{Cache: c, Tokens: []int{m.Config.VocabSize}}}},
	} {
		if _, err := m.Extend(tc.chunks); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if c.Len() != 0 {
		t.Errorf("a rejected pass left %d positions in the cache", c.Len())
	}
}

// kernelFamilies returns the names of the matrix-product kernel families
// this CPU can run (useKernels switches to one); the flags are restored
// when the test ends.
func kernelFamilies(t *testing.T) []string {
	fma, zmm := fmaKernels, zmmKernels
	t.Cleanup(func() { fmaKernels, zmmKernels = fma, zmm })
	fams := []string{"portable"}
	if fma {
		fams = append(fams, "avx2")
	}
	if zmm {
		fams = append(fams, "avx512")
	}
	return fams
}

// useKernels turns on one family of kernelFamilies.
func useKernels(fam string) {
	fmaKernels, zmmKernels = fam != "portable", fam == "avx512"
}
