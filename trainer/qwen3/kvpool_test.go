package qwen3

import (
	"math"
	"testing"
)

// TestPooledCacheArraysKeepBits decodes a sequence into a fresh cache,
// then decodes others whose caches take the arrays given back by released
// caches and by growth (their old contents still in them), and checks the
// same sequence's logits bit for bit, step by step, and that a released
// cache is empty and decodes again.
func TestPooledCacheArraysKeepBits(t *testing.T) {
	m, err := NewRandom(Tiny(), 3)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{5, 9, 2, 7, 1}
	decode := func(c *Cache, steps int) [][]float32 {
		lg, err := m.Prefill(c, prompt)
		if err != nil {
			t.Fatal(err)
		}
		out := [][]float32{lg}
		for s := range steps {
			lg, err = m.Step(c, (s*7+3)%m.Config.VocabSize)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lg)
		}
		return out
	}
	want := decode(m.NewCache(), 70)
	for round := range 3 {
		// Another sequence fills arrays with its own keys and values,
		// then gives them back.
		other := m.NewCache()
		if _, err := m.Prefill(other, []int{3, 3, 8, 8, 1, 6, 2, 2, 4}); err != nil {
			t.Fatal(err)
		}
		for s := range 40 + round*20 {
			if _, err := m.Step(other, s%m.Config.VocabSize); err != nil {
				t.Fatal(err)
			}
		}
		other.Release()
		if other.Len() != 0 {
			t.Fatalf("a released cache holds %d positions", other.Len())
		}
		c := other // a released cache decodes again, from empty
		if round == 1 {
			c = m.NewCache()
		}
		got := decode(c, 70)
		for s := range want {
			for i := range want[s] {
				if math.Float32bits(got[s][i]) != math.Float32bits(want[s][i]) {
					t.Fatalf("round %d, step %d, logit %d: %v, with fresh arrays %v", round, s, i, got[s][i], want[s][i])
				}
			}
		}
		c.Release()
	}
}
