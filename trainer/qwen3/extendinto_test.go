package qwen3

import (
	"math"
	"sync"
	"testing"
)

// TestExtendIntoReusesItsArray decodes three sequences step by step with
// ExtendInto, handing each step the array the step before returned, and
// checks that every step's logits have the bits Extend gives on caches
// decoded beside them, that the array is the one handed in once it is
// large enough, and that an array too short is left as it was.
func TestExtendIntoReusesItsArray(t *testing.T) {
	m := tinyModel(t, 21)
	V := m.Config.VocabSize
	const n = 3
	prompts := [][]int{randomIDs(5, V, 1), randomIDs(9, V, 2), randomIDs(2, V, 3)}
	into, plain := make([]*Cache, n), make([]*Cache, n)
	for i := range n {
		into[i], plain[i] = m.NewCache(), m.NewCache()
	}
	chunksOf := func(cs []*Cache, step int) []Chunk {
		ch := make([]Chunk, n)
		for i, c := range cs {
			toks := prompts[i]
			if step > 0 {
				toks = []int{(step*13 + i*7) % V}
			}
			ch[i] = Chunk{Cache: c, Tokens: toks, Logits: true}
		}
		return ch
	}
	short := make([]float32, n*V-1)
	for i := range short {
		short[i] = float32(math.NaN())
	}
	buf := short
	for step := range 6 {
		got, next, err := m.ExtendInto(chunksOf(into, step), buf)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Extend(chunksOf(plain, step))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if j, ok := sameBits(got[i], want[i]); !ok {
				t.Fatalf("step %d sequence %d: logit %d is %v through ExtendInto, %v through Extend", step, i, j, got[i][j], want[i][j])
			}
			if &got[i][0] != &next[i*V] {
				t.Fatalf("step %d sequence %d: logits are not in the returned array", step, i)
			}
		}
		switch {
		case step == 0 && &next[0] == &short[0]:
			t.Fatal("a too short array was written to")
		case step > 0 && &next[0] != &buf[0]:
			t.Fatalf("step %d: a new array although the one handed in had room", step)
		}
		buf = next
	}
	for i, v := range short {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("the too short array changed at %d: %v", i, v)
		}
	}
}

// TestEachRowRunsEveryUnitOnce runs eachRow below and above the work it
// spreads from, and checks that every unit ran once, with a scratch of
// the length asked for.
func TestEachRowRunsEveryUnitOnce(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 64} {
		for _, work := range []int{0, eachRowMinWork - 1, eachRowMinWork, 1 << 30} {
			var mu sync.Mutex
			runs := make([]int, n)
			bad := 0
			eachRow(n, work, func(u int, scratch []float32) {
				for i := range scratch {
					scratch[i] = float32(u) // shares must not share scratch
				}
				mu.Lock()
				defer mu.Unlock()
				runs[u]++
				if len(scratch) != 37 {
					bad++
				}
				for _, v := range scratch {
					if v != float32(u) {
						bad++
						break
					}
				}
			}, 37)
			for u, k := range runs {
				if k != 1 {
					t.Fatalf("n %d work %d: unit %d ran %d times", n, work, u, k)
				}
			}
			if bad > 0 {
				t.Fatalf("n %d work %d: %d units had a scratch of the wrong length or another share's values", n, work, bad)
			}
		}
	}
}
