package qwen3

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Cache holds one sequence's keys and values (after q/k norm and RoPE) for
// every layer, so each new token costs one pass over the weights. A Cache
// belongs to the model view that created it (adapters change the keys) and
// is not safe for concurrent use.
type Cache struct {
	model *Model
	k, v  [][]float32 // per layer: positions × KVDim
	n     int
}

// NewCache returns an empty cache for this model view.
func (m *Model) NewCache() *Cache {
	L := len(m.layers)
	return &Cache{model: m, k: make([][]float32, L), v: make([][]float32, L)}
}

// Len is the number of positions cached.
func (c *Cache) Len() int { return c.n }

// Clone returns an independent copy, e.g. to sample several completions of
// one prefilled prompt.
func (c *Cache) Clone() *Cache {
	d := &Cache{model: c.model, n: c.n, k: make([][]float32, len(c.k)), v: make([][]float32, len(c.v))}
	for i := range c.k {
		d.k[i] = slices.Clone(c.k[i])
		d.v[i] = slices.Clone(c.v[i])
	}
	return d
}

// ClonePrefix returns an independent copy of the first n positions
// (n ≤ Len), e.g. to extend a cached prompt prefix with another suffix.
func (c *Cache) ClonePrefix(n int) *Cache {
	n = min(max(n, 0), c.n)
	kv := c.model.Config.KVDim()
	d := &Cache{model: c.model, n: n, k: make([][]float32, len(c.k)), v: make([][]float32, len(c.v))}
	for i := range c.k {
		d.k[i] = slices.Clone(c.k[i][:n*kv])
		d.v[i] = slices.Clone(c.v[i][:n*kv])
	}
	return d
}

// Model is the model view the cache belongs to.
func (c *Cache) Model() *Model { return c.model }

// Bytes is the memory the cached keys and values take.
func (c *Cache) Bytes() int64 {
	return int64(c.n) * c.model.Config.KVBytesPerToken()
}

// Truncate drops every position from n on (n ≤ Len), e.g. to reuse a
// cached prompt prefix.
func (c *Cache) Truncate(n int) {
	if n < 0 || n >= c.n {
		return
	}
	kv := c.model.Config.KVDim()
	for i := range c.k {
		c.k[i] = c.k[i][:n*kv]
		c.v[i] = c.v[i][:n*kv]
	}
	c.n = n
}

type row struct {
	c   *Cache
	tok int
	pos int
}

// Prefill appends tokens to the cache in one batched pass and returns the
// logits after the last one.
func (m *Model) Prefill(c *Cache, ids []int) ([]float32, error) {
	if err := m.checkCache(c); err != nil {
		return nil, err
	}
	if err := m.checkTokens(ids); err != nil {
		return nil, err
	}
	rows := make([]row, len(ids))
	for i, id := range ids {
		rows[i] = row{c: c, tok: id, pos: c.n + i}
	}
	want := make([]bool, len(ids))
	want[len(ids)-1] = true
	lg, err := m.logitsRows(rows, want)
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
// next-token logits. The caches must be distinct.
func (m *Model) StepBatch(caches []*Cache, tokens []int) ([][]float32, error) {
	if len(caches) != len(tokens) {
		return nil, fmt.Errorf("stepping batch: %d caches for %d tokens", len(caches), len(tokens))
	}
	if err := m.checkTokens(tokens); err != nil {
		return nil, err
	}
	rows := make([]row, len(tokens))
	want := make([]bool, len(tokens))
	seen := map[*Cache]bool{}
	for i, c := range caches {
		if err := m.checkCache(c); err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, fmt.Errorf("stepping batch: cache %d appears twice", i)
		}
		seen[c] = true
		rows[i] = row{c: c, tok: tokens[i], pos: c.n}
		want[i] = true
	}
	return m.logitsRows(rows, want)
}

func (m *Model) checkCache(c *Cache) error {
	if c == nil || c.model != m {
		return fmt.Errorf("running model: cache belongs to another model view")
	}
	return nil
}

// logitsRows runs rows through the decoder and projects the wanted rows.
func (m *Model) logitsRows(rows []row, want []bool) ([][]float32, error) {
	if m.head == nil {
		return nil, fmt.Errorf("running model: a sequence-classification model has no lm_head")
	}
	hid := m.decodeRows(rows, want)
	D, V := m.Config.HiddenSize, m.Config.VocabSize
	W := len(hid) / D
	logits := make([]float32, W*V)
	matmulT(hid, W, D, m.head.Data, V, logits, false)
	out := make([][]float32, W)
	for i := range out {
		out[i] = logits[i*V : (i+1)*V : (i+1)*V]
	}
	return out, nil
}

// decodeRows appends every row's key/value to its cache at its position,
// attends over the cache up to that position, and returns the final-normed
// hidden states of the wanted rows, stacked. Rows of one cache must come in
// position order starting at the cache length.
func (m *Model) decodeRows(rows []row, want []bool) []float32 {
	c := m.Config
	R, D, H, K, d, I := len(rows), c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.IntermediateSize
	KV := K * d
	h := make([]float32, R*D)
	for r, rw := range rows {
		copy(h[r*D:(r+1)*D], m.embed.Data[rw.tok*D:(rw.tok+1)*D])
	}
	inv := RopeInvFreq(c.RopeTheta, d)
	cos, sin := make([]float32, R*d), make([]float32, R*d)
	maxPos := 0
	for r, rw := range rows {
		ropeAt(inv, rw.pos, cos[r*d:(r+1)*d], sin[r*d:(r+1)*d])
		maxPos = max(maxPos, rw.pos)
	}
	scaling := float32(math.Pow(float64(d), -0.5))
	x := make([]float32, R*D)
	q, k, v := make([]float32, R*H*d), make([]float32, R*KV), make([]float32, R*KV)
	o, tmp := make([]float32, R*H*d), make([]float32, R*D)
	gate, up := make([]float32, R*I), make([]float32, R*I)
	for li := range m.layers {
		l := &m.layers[li]
		rmsNorm(h, l.inNorm, c.RMSNormEps, x)
		l.project(QProj, x, R, q)
		l.project(KProj, x, R, k)
		l.project(VProj, x, R, v)
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
			rw.c.k[li] = append(rw.c.k[li], k[r*KV:(r+1)*KV]...)
			rw.c.v[li] = append(rw.c.v[li], v[r*KV:(r+1)*KV]...)
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
			p := probs[:n]
			blas32.Gemv(blas.NoTrans, scaling,
				blas32.General{Rows: n, Cols: d, Stride: KV, Data: kc[j*d:]},
				blas32.Vector{N: d, Inc: 1, Data: q[(r*H+i)*d:]}, 0,
				blas32.Vector{N: n, Inc: 1, Data: p})
			softmaxInPlace(p)
			blas32.Gemv(blas.Trans, 1,
				blas32.General{Rows: n, Cols: d, Stride: KV, Data: vc[j*d:]},
				blas32.Vector{N: n, Inc: 1, Data: p}, 0,
				// y capped at d: gonum zeroes all of y when beta is 0.
				blas32.Vector{N: d, Inc: 1, Data: o[(r*H+i)*d : (r*H+i+1)*d]})
		}, maxPos+1)
		l.project(OProj, o, R, tmp)
		for i := range h {
			h[i] += tmp[i]
		}
		rmsNorm(h, l.postNorm, c.RMSNormEps, x)
		l.project(GateProj, x, R, gate)
		l.project(UpProj, x, R, up)
		for i := range gate {
			gate[i] = silu(gate[i]) * up[i]
		}
		l.project(DownProj, gate, R, tmp)
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
