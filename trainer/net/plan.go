package net

import (
	"fmt"
	"slices"

	"mascot.dev/mascot/trainer/pass"
)

// plan is how one pass covers its batch: groups of rows, each padded to
// its own longest row, and the positions each head reads.
type plan struct {
	B, T   int // batch rows and the padded length reported in Outputs
	groups []group
	// lm: the LM head reads the groups' sel positions; else the score head.
	lm      bool
	invTemp float32
	// realTokens counts the rows' tokens (no padding).
	realTokens int
}

// group is a run of rows processed together.
type group struct {
	rows []int // batch row indices, longest first
	T    int   // padded length (the longest row)
	n    int   // tokens: len(rows)·T
	// ids, pos are per token (padding: token 0 at its position); lens per row.
	ids, pos, lens []int32
	// sel are the group-token indices a head reads, tgt their targets
	// (LM head), at the (row, position) each output goes to.
	sel, tgt []int32
	at       []rowPos
}

type rowPos struct{ row, t int }

// makePlan checks a batch and groups its rows: sorted by length
// (longest first, ties in row order), greedily packed while a group's
// rows × longest row stays within ChunkTokens.
func (m *Model) makePlan(b pass.Batch, o pass.RunOptions) (*plan, error) {
	B := len(b.IDs)
	if B == 0 {
		return nil, fmt.Errorf("empty batch")
	}
	T := b.Len()
	p := &plan{B: B, T: T, lm: m.head != nil, invTemp: 1}
	if o.Temperature != 0 {
		p.invTemp = float32(1 / o.Temperature)
	}
	if o.Logits {
		return nil, fmt.Errorf("this network never holds full logits (RunOptions.Logits is for trainer/autodiff)")
	}
	if o.LogPFrom != nil && len(o.LogPFrom) != B {
		return nil, fmt.Errorf("LogPFrom has %d rows for a batch of %d", len(o.LogPFrom), B)
	}
	if o.ScoreAt != nil && len(o.ScoreAt) != B {
		return nil, fmt.Errorf("ScoreAt has %d rows for a batch of %d", len(o.ScoreAt), B)
	}
	for r, row := range b.IDs {
		if len(row) == 0 || len(row) > T {
			return nil, fmt.Errorf("row %d has %d tokens, want 1..%d", r, len(row), T)
		}
		for t, id := range row {
			if id < 0 || id >= m.d.V {
				return nil, fmt.Errorf("row %d position %d: token %d outside vocab %d", r, t, id, m.d.V)
			}
		}
		if o.ScoreAt != nil && (o.ScoreAt[r] < 0 || o.ScoreAt[r] >= len(row)) {
			return nil, fmt.Errorf("row %d: score position %d outside its %d tokens", r, o.ScoreAt[r], len(row))
		}
		p.realTokens += len(row)
	}
	order := make([]int, B)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(b.IDs[y]) - len(b.IDs[x]) })
	chunk := m.Options.ChunkTokens
	for lo := 0; lo < B; {
		Tg := len(b.IDs[order[lo]])
		hi := lo + 1
		for hi < B && (hi-lo+1)*Tg <= chunk {
			hi++
		}
		p.groups = append(p.groups, m.newGroup(b, o, order[lo:hi], Tg, p.lm))
		lo = hi
	}
	return p, nil
}

func (m *Model) newGroup(b pass.Batch, o pass.RunOptions, rows []int, T int, lm bool) group {
	g := group{rows: rows, T: T, n: len(rows) * T}
	g.ids, g.pos, g.lens = make([]int32, g.n), make([]int32, g.n), make([]int32, len(rows))
	for j, r := range rows {
		row := b.IDs[r]
		g.lens[j] = int32(len(row))
		for t := range T {
			g.pos[j*T+t] = int32(t)
			if t < len(row) {
				g.ids[j*T+t] = int32(row[t])
			}
		}
		switch {
		case lm:
			from := 0
			if o.LogPFrom != nil {
				from = max(o.LogPFrom[r], 0)
			}
			for t := from; t < len(row)-1; t++ {
				g.sel = append(g.sel, int32(j*T+t))
				g.tgt = append(g.tgt, int32(row[t+1]))
				g.at = append(g.at, rowPos{r, t})
			}
		case o.ScoreAt != nil:
			t := o.ScoreAt[r]
			g.sel = append(g.sel, int32(j*T+t))
			g.at = append(g.at, rowPos{r, t})
		default:
			for t := range row {
				g.sel = append(g.sel, int32(j*T+t))
				g.at = append(g.at, rowPos{r, t})
			}
		}
	}
	return g
}
