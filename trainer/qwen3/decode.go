package qwen3

import (
	"fmt"
	"math"
)

// Chunk is one sequence's share of a batched pass (Extend): Tokens are
// appended to Cache; with Logits set, the pass returns the next-token
// logits after the last of them. A decoding sequence contributes one
// token, a prompt being prefilled a block of its tokens.
type Chunk struct {
	Cache  *Cache
	Tokens []int
	Logits bool
}

// Extend appends every chunk's tokens to its cache in one pass over the
// weights and returns, for each chunk, the logits after its last token
// (nil where Logits is unset). The caches must be distinct and belong to
// this model or to views of the same base (WithAdapters): the base weights
// are read once for every row, and each adapter's delta is applied to its
// own rows only.
//
// A chunk's logits (and the keys and values it caches) have the same bits
// whatever else is in the pass and however its sequence was cut into
// chunks: every output of every matrix product is one dot product in a
// fixed order (matmulT), and each row attends over its own cache.
func (m *Model) Extend(chunks []Chunk) ([][]float32, error) {
	lg, _, err := m.ExtendInto(chunks, nil)
	return lg, err
}

// ExtendInto is Extend writing the logits into buf's array when it is
// large enough (else into a new one) and returning that array for the
// next call: the returned logits alias it until then. A decoding loop
// would otherwise allocate a batch's logits at every step for the next
// step to drop; with a model's weights live in the heap, that garbage
// grows the heap into fresh pages that fault in, CPU the process pays
// for (docs/benchmarks.md, the engine's heap-growth round).
func (m *Model) ExtendInto(chunks []Chunk, buf []float32) ([][]float32, []float32, error) {
	if m.head == nil {
		return nil, buf, fmt.Errorf("running model: a sequence-classification model has no lm_head")
	}
	seen := make(map[*Cache]bool, len(chunks))
	n := 0
	for i, ch := range chunks {
		c := ch.Cache
		if c == nil || c.model.base() != m.base() {
			return nil, buf, fmt.Errorf("running model: chunk %d's cache belongs to another model", i)
		}
		if seen[c] {
			return nil, buf, fmt.Errorf("running model: chunk %d's cache appears twice", i)
		}
		seen[c] = true
		if err := m.checkTokens(ch.Tokens); err != nil {
			return nil, buf, err
		}
		n += len(ch.Tokens)
	}
	// Rows of one view are kept together so that an adapter's delta is one
	// product over its rows; the order of views follows the chunks.
	var order []int
	for _, v := range viewsOf(chunks) {
		for i, ch := range chunks {
			if ch.Cache.model == v {
				order = append(order, i)
			}
		}
	}
	rows := make([]row, 0, n)
	want := make([]bool, 0, n)
	for _, i := range order {
		ch := chunks[i]
		for k, id := range ch.Tokens {
			rows = append(rows, row{c: ch.Cache, tok: id, pos: ch.Cache.n + k})
			want = append(want, ch.Logits && k == len(ch.Tokens)-1)
		}
	}
	lg, buf, err := m.logitsRowsInto(rows, want, buf)
	if err != nil {
		return nil, buf, err
	}
	out := make([][]float32, len(chunks))
	w := 0
	for _, i := range order {
		if chunks[i].Logits {
			out[i] = lg[w]
			w++
		}
	}
	return out, buf, nil
}

// viewsOf lists the distinct model views of chunks' caches in order of
// first appearance.
func viewsOf(chunks []Chunk) []*Model {
	var vs []*Model
	for _, ch := range chunks {
		found := false
		for _, v := range vs {
			found = found || v == ch.Cache.model
		}
		if !found {
			vs = append(vs, ch.Cache.model)
		}
	}
	return vs
}

// Prefill appends tokens to the cache in one batched pass and returns the
// logits after the last one.
func (m *Model) Prefill(c *Cache, ids []int) ([]float32, error) {
	if err := m.checkCache(c); err != nil {
		return nil, err
	}
	lg, err := m.Extend([]Chunk{{Cache: c, Tokens: ids, Logits: true}})
	if err != nil {
		return nil, err
	}
	return lg[0], nil
}

// Step appends one token and returns the logits for the next position.
func (m *Model) Step(c *Cache, id int) ([]float32, error) {
	lg, err := m.StepBatch([]*Cache{c}, []int{id})
	if err != nil {
		return nil, err
	}
	return lg[0], nil
}

// StepBatch appends tokens[i] to caches[i] for every i in one pass (the
// weights are read once for the whole batch) and returns each sequence's
// next-token logits. The caches must be distinct and this view's.
func (m *Model) StepBatch(caches []*Cache, tokens []int) ([][]float32, error) {
	lg, _, err := m.StepBatchInto(caches, tokens, nil)
	return lg, err
}

// StepBatchInto is StepBatch writing the logits into buf's array when it
// is large enough, as ExtendInto: a sampling loop hands each step the
// array the step before returned.
func (m *Model) StepBatchInto(caches []*Cache, tokens []int, buf []float32) ([][]float32, []float32, error) {
	if len(caches) != len(tokens) {
		return nil, buf, fmt.Errorf("stepping batch: %d caches for %d tokens", len(caches), len(tokens))
	}
	chunks := make([]Chunk, len(caches))
	for i, c := range caches {
		if err := m.checkCache(c); err != nil {
			return nil, buf, err
		}
		chunks[i] = Chunk{Cache: c, Tokens: tokens[i : i+1], Logits: true}
	}
	return m.ExtendInto(chunks, buf)
}

type row struct {
	c   *Cache
	tok int
	pos int
}

// logitsRows runs rows through the decoder and projects the wanted rows.
func (m *Model) logitsRows(rows []row, want []bool) ([][]float32, error) {
	lg, _, err := m.logitsRowsInto(rows, want, nil)
	return lg, err
}

// logitsRowsInto is logitsRows writing into buf's array when it has room
// (ExtendInto), and returning the array written.
func (m *Model) logitsRowsInto(rows []row, want []bool, buf []float32) ([][]float32, []float32, error) {
	if m.head == nil {
		return nil, buf, fmt.Errorf("running model: a sequence-classification model has no lm_head")
	}
	hid := m.decodeRows(rows, want)
	D, V := m.Config.HiddenSize, m.Config.VocabSize
	W := len(hid) / D
	if cap(buf) < W*V {
		buf = make([]float32, W*V)
	}
	logits := buf[:W*V]
	product(hid, W, D, m.head.Data, V, logits, false, m.base().streams)
	out := make([][]float32, W)
	for i := range out {
		out[i] = logits[i*V : (i+1)*V : (i+1)*V]
	}
	return out, buf, nil
}

// span is a run of rows of one model view.
type span struct {
	view   *Model
	lo, hi int
}

// spansOf cuts rows into runs of one view (rows of one view must be
// contiguous for their adapter's delta to be one product).
func spansOf(rows []row) []span {
	var ss []span
	for i, rw := range rows {
		if len(ss) > 0 && ss[len(ss)-1].view == rw.c.model {
			ss[len(ss)-1].hi = i + 1
			continue
		}
		ss = append(ss, span{view: rw.c.model, lo: i, hi: i + 1})
	}
	return ss
}

// project computes y[rows,out] = x·Wᵀ with layer li's base weight p for
// every row, plus each span's LoRA deltas on its own rows.
func (m *Model) project(li int, p Proj, x []float32, rows int, y []float32, spans []span) {
	w := m.layers[li].proj[p]
	out, in := w.Shape[0], w.Shape[1]
	product(x, rows, in, w.Data, out, y, false, m.base().streams)
	for _, s := range spans {
		n := s.hi - s.lo
		for _, d := range s.view.layers[li].lora[p] {
			t := make([]float32, n*d.r)
			matmulT(x[s.lo*in:s.hi*in], n, in, d.a.Data, d.r, t, false)
			for i := range t {
				t[i] *= d.scale
			}
			matmulT(t, n, d.r, d.b.Data, out, y[s.lo*out:s.hi*out], true)
		}
	}
}

// decodeRows appends every row's key/value to its cache at its position,
// attends over the cache up to that position, and returns the final-normed
// hidden states of the wanted rows, stacked. Rows of one cache must come in
// position order starting at the cache length.
func (m *Model) decodeRows(rows []row, want []bool) []float32 {
	c := m.Config
	R, D, H, K, d, I := len(rows), c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.IntermediateSize
	KV := K * d
	spans := spansOf(rows)
	// The step's activations come from the float pools and go back at the
	// end (every one is written before it is read): a decoding server
	// would otherwise allocate them anew at every step.
	var held [][]float32
	scratch := func(n int) []float32 {
		b := getFloats(n)[:n]
		held = append(held, b)
		return b
	}
	defer func() {
		for _, b := range held {
			putFloats(b)
		}
	}()
	h := scratch(R * D)
	for r, rw := range rows {
		copy(h[r*D:(r+1)*D], m.embed.Data[rw.tok*D:(rw.tok+1)*D])
	}
	inv := RopeInvFreq(c.RopeTheta, d)
	cos, sin := scratch(R*d), scratch(R*d)
	maxPos := 0
	for r, rw := range rows {
		ropeAt(inv, rw.pos, cos[r*d:(r+1)*d], sin[r*d:(r+1)*d])
		maxPos = max(maxPos, rw.pos)
	}
	scaling := float32(math.Pow(float64(d), -0.5))
	x := scratch(R * D)
	q, k, v := scratch(R*H*d), scratch(R*KV), scratch(R*KV)
	o, tmp := scratch(R*H*d), scratch(R*D)
	gate, up := scratch(R*I), scratch(R*I)
	for li := range m.layers {
		l := &m.layers[li]
		rmsNorm(h, l.inNorm, c.RMSNormEps, x)
		m.project(li, QProj, x, R, q, spans)
		m.project(li, KProj, x, R, k, spans)
		m.project(li, VProj, x, R, v, spans)
		rmsNorm(q, l.qNorm, c.RMSNormEps, q)
		rmsNorm(k, l.kNorm, c.RMSNormEps, k)
		for r, rw := range rows {
			cs, sn := cos[r*d:(r+1)*d], sin[r*d:(r+1)*d]
			for i := 0; i < H; i++ {
				rotateHalf(q[(r*H+i)*d:(r*H+i+1)*d], cs, sn)
			}
			for j := 0; j < K; j++ {
				rotateHalf(k[(r*K+j)*d:(r*K+j+1)*d], cs, sn)
			}
			rw.c.k[li] = appendKV(rw.c.k[li], k[r*KV:(r+1)*KV])
			rw.c.v[li] = appendKV(rw.c.v[li], v[r*KV:(r+1)*KV])
		}
		// Rows only read their cache up to their own position (every row's
		// key and value are appended above), so rows and heads attend in
		// parallel: one decoding sequence still spreads its heads over the
		// CPUs.
		eachRow(R*H, R*(maxPos+1)*H*d, func(u int, probs []float32) {
			r, i := u/H, u%H
			rw := rows[r]
			n := rw.pos + 1
			kc, vc := rw.c.k[li], rw.c.v[li]
			j := kvHead(i, H, K)
			attendHead(q[(r*H+i)*d:], kc[j*d:], vc[j*d:], KV, n, d, scaling, probs, o[(r*H+i)*d:])
		}, maxPos+1)
		m.project(li, OProj, o, R, tmp, spans)
		for i := range h {
			h[i] += tmp[i]
		}
		rmsNorm(h, l.postNorm, c.RMSNormEps, x)
		m.project(li, GateProj, x, R, gate, spans)
		m.project(li, UpProj, x, R, up, spans)
		swiGLU(gate, up)
		m.project(li, DownProj, gate, R, tmp, spans)
		for i := range h {
			h[i] += tmp[i]
		}
	}
	for _, rw := range rows {
		rw.c.n++
	}
	out := make([]float32, 0, R*D)
	for r := range rows {
		if want[r] {
			rmsNorm(h[r*D:(r+1)*D], m.norm.Data, c.RMSNormEps, x[:D])
			out = append(out, x[:D]...)
		}
	}
	return out
}
