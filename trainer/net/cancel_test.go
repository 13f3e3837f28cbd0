package net

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/pass"
)

// countdown is a context that reports cancellation from its n-th Err call
// on: it shows where a pass checks its context, without timing.
type countdown struct {
	context.Context
	n, calls int
}

func (c *countdown) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// A pass checks its context between ops, inside layers and inside the
// head, and stops with the context's error wherever it is cancelled; the
// model then runs the next pass normally.
func TestPassStopsWhenCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	cfg := randomConfig(rng, true)
	cfg.NumHiddenLayers = 3
	w := randomWeights(cfg, 2)
	m, err := New(newCPU(t, 2), cfg, FromWeights(w), Options{Train: pass.TrainAll, ChunkTokens: 8, HeadRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b := pass.Batch{IDs: randomRows(rng, cfg.VocabSize, 7, 5, 6)}
	full := &countdown{Context: bg, n: 1 << 30}
	want, err := m.Forward(full, b, pass.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checks := full.calls
	if checks < 3*cfg.NumHiddenLayers*3 {
		t.Fatalf("a forward over 3 groups of 3 layers checked its context %d times", checks)
	}
	for _, n := range []int{1, 2, checks / 2, checks - 1} {
		ctx := &countdown{Context: bg, n: n}
		if _, err := m.Forward(ctx, b, pass.RunOptions{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d of %d: %v", n, checks, err)
		}
		if ctx.calls != n {
			t.Fatalf("cancelled at check %d, the pass went on to check %d", n, ctx.calls)
		}
		if _, err := m.Backward(&countdown{Context: bg, n: n}, b, pass.RunOptions{}, nil, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("backward cancelled at check %d: %v", n, err)
		}
	}
	got, err := m.Forward(bg, b, pass.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r := range want.LogP {
		for i := range want.LogP[r] {
			if got.LogP[r][i] != want.LogP[r][i] {
				t.Fatalf("after cancelled passes logp[%d][%d] = %v, was %v", r, i, got.LogP[r][i], want.LogP[r][i])
			}
		}
	}
}
