package computetest

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/compute"
)

// contracts checks what the interface promises beyond each op's values.
func contracts(t *testing.T, b compute.Backend, open func(t *testing.T) compute.Backend) {
	t.Run("UploadRoundsBF16", func(t *testing.T) { uploadRounds(t, b) })
	t.Run("TransfersAndViews", func(t *testing.T) { transfers(t, b) })
	t.Run("MemoryInUse", func(t *testing.T) { memoryInUse(t, b) })
	t.Run("Deterministic", func(t *testing.T) { deterministic(t, b) })
	t.Run("StickyErrors", func(t *testing.T) { sticky(t, open) })
}

func uploadRounds(t *testing.T, b compute.Backend) {
	bits := []uint32{
		0x3f808000,             // a tie: stays at the even 0x3f80
		0x3f818000,             // a tie: up to the even 0x3f82
		0x3f808001,             // above the tie: up
		0x3f807fff,             // below: down
		0x7f7fffff,             // the largest float32 rounds to +Inf
		0x80000000,             // −0
		0x00000001,             // the smallest subnormal: to +0
		0x0001ffff,             // a subnormal rounding up
		0x7f800000, 0xff800000, // ±Inf
		0x7fc00001, // a NaN stays NaN
		0xbfc0ffff,
	}
	r := rand.New(rand.NewSource(1))
	src := make([]float32, len(bits)+1001)
	for i, u := range bits {
		src[i] = math.Float32frombits(u)
	}
	copy(src[len(bits):], normal(r, 1001, 100))
	e := &env{b: b}
	defer e.freeAll()
	got := e.get(e.bf16(src))
	for i, s := range src {
		w := roundBF16(s)
		g := float32(got[i])
		if math.Float32bits(g) != math.Float32bits(w) && !(math.IsNaN(float64(g)) && math.IsNaN(float64(w))) {
			t.Errorf("Upload of %#08x into BF16 reads back %#08x, want %#08x", math.Float32bits(s), math.Float32bits(g), math.Float32bits(w))
		}
	}
	// Raw bfloat16 bits go in unchanged.
	raw := []uint16{0x3f80, 0xc049, 0x0001, 0x8000, 0x7f80}
	rt := e.alloc(compute.BF16, len(raw))
	b.Upload(rt, raw)
	back := e.get(rt)
	for i, h := range raw {
		if w := math.Float32frombits(uint32(h) << 16); float32(back[i]) != w {
			t.Errorf("bits %#04x read back as %g, want %g", h, back[i], w)
		}
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}

func transfers(t *testing.T, b compute.Backend) {
	e := &env{b: b}
	defer e.freeAll()
	ids := []int32{5, -3, 1 << 30, 0, 77}
	it := e.i32(ids)
	back := make([]int32, len(ids))
	b.Download(back, it)
	for i := range ids {
		if back[i] != ids[i] {
			t.Fatalf("I32 round trip: %v, want %v", back, ids)
		}
	}
	v := make([]float32, 20)
	for i := range v {
		v[i] = float32(i)
	}
	base := e.f32(v)
	inner := b.Slice(b.Slice(base, 3, 10), 2, 5) // elements 5..9 of base
	if inner.Len() != 5 || inner.DType() != compute.F32 {
		t.Fatalf("view of a view: Len %d DType %v", inner.Len(), inner.DType())
	}
	b.Upload(inner, []float32{-1, -2, -3, -4, -5})
	got := e.get(base)
	for i, g := range got {
		w := float64(i)
		if i >= 5 && i < 10 {
			w = float64(4 - i)
		}
		if g != w {
			t.Fatalf("after writing a view of a view: element %d is %g, want %g", i, g, w)
		}
	}
	bv := e.alloc(compute.BF16, 8)
	if s := b.Slice(bv, 1, 4); s.DType() != compute.BF16 || s.Len() != 4 {
		t.Fatalf("BF16 view: %v[%d]", s.DType(), s.Len())
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}

func memoryInUse(t *testing.T, b compute.Backend) {
	before := b.MemoryInUse()
	f := b.Alloc(compute.F32, 1000)
	h := b.Alloc(compute.BF16, 1000)
	during := b.MemoryInUse()
	if during < before+6000 {
		t.Errorf("MemoryInUse grew by %d after allocating 4000 + 2000 bytes", during-before)
	}
	_ = b.Slice(f, 10, 100)
	if b.MemoryInUse() != during {
		t.Errorf("a view changed MemoryInUse from %d to %d", during, b.MemoryInUse())
	}
	b.Free(f)
	b.Free(h)
	if after := b.MemoryInUse(); after != before {
		t.Errorf("MemoryInUse %d after freeing, %d before allocating", after, before)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}

// deterministic runs the ops whose results sum over many terms twice and
// wants the same bits.
func deterministic(t *testing.T, b compute.Backend) {
	picks := map[string]bool{"ScatterAdd": true, "SumSquares": true, "RMSNormBackward": true,
		"AttentionBackward": true, "LogProbsBackward": true, "Gemm": true}
	for _, c := range cases() {
		if !picks[c.name] {
			continue
		}
		for _, v := range c.variants {
			seed := seedOf(c.name + "/" + v.name)
			first := runOn(t, b, v.build(rand.New(rand.NewSource(seed))))
			second := runOn(t, b, v.build(rand.New(rand.NewSource(seed))))
			for i, o := range first {
				for j := range o.got {
					x, y := o.got[j], second[i].got[j]
					if math.Float64bits(x) != math.Float64bits(y) && !(math.IsNaN(x) && math.IsNaN(y)) {
						t.Fatalf("%s/%s: %s[%d] is %.9g on one run and %.9g on the next", c.name, v.name, o.name, j, x, y)
					}
				}
			}
		}
	}
}

// badCall is one op whose arguments do not fit its buffers.
type badCall struct {
	op   string
	call func(b compute.Backend)
}

func badCalls() []badCall {
	f := func(b compute.Backend, n int) compute.Tensor { return b.Alloc(compute.F32, n) }
	i := func(b compute.Backend, n int) compute.Tensor { return b.Alloc(compute.I32, n) }
	attn := func(b compute.Backend) compute.Attn {
		lens := i(b, 2)
		b.Upload(lens, []int32{4, 4})
		return compute.Attn{Q: f(b, 2*4*4*8), K: f(b, 2*4*2*8), V: f(b, 2*4*2*8), Out: f(b, 2*4*4*8), LSE: f(b, 2*4*4),
			Lens: lens, B: 2, T: 4, H: 4, KV: 2, D: 8, Scale: 0.3}
	}
	head := func(b compute.Backend) compute.LMHead {
		return compute.LMHead{Hidden: f(b, 6*4), Head: f(b, 10*4), Targets: i(b, 6), LogP: f(b, 6), LSE: f(b, 6), N: 6, D: 4, V: 10, InvTemp: 1}
	}
	return []badCall{
		{"Gemm", func(b compute.Backend) { b.Gemm(false, false, 4, 4, 4, 1, f(b, 16), 4, f(b, 16), 4, 0, f(b, 15), 4) }},
		{"Gemm", func(b compute.Backend) { b.Gemm(false, true, 4, 4, 4, 1, f(b, 16), 3, f(b, 16), 4, 0, f(b, 16), 4) }},
		{"Gather", func(b compute.Backend) { b.Gather(f(b, 5), f(b, 30), i(b, 2), 3) }},
		{"ScatterAdd", func(b compute.Backend) { b.ScatterAdd(f(b, 30), f(b, 5), i(b, 2), 3) }},
		{"Add", func(b compute.Backend) { b.Add(f(b, 5), f(b, 6)) }},
		{"Axpy", func(b compute.Backend) { b.Axpy(f(b, 5), 2, f(b, 4)) }},
		{"SwiGLU", func(b compute.Backend) { b.SwiGLU(f(b, 5), f(b, 5), f(b, 4)) }},
		{"SwiGLUBackward", func(b compute.Backend) { b.SwiGLUBackward(f(b, 5), f(b, 5), f(b, 5), f(b, 5), f(b, 6)) }},
		{"Dropout", func(b compute.Backend) { b.Dropout(f(b, 5), f(b, 7), 0.1, 1) }},
		{"RMSNorm", func(b compute.Backend) { b.RMSNorm(f(b, 12), f(b, 3), f(b, 11), f(b, 4), 3, 4, 1e-6) }},
		{"RMSNormBackward", func(b compute.Backend) {
			b.RMSNormBackward(f(b, 12), f(b, 3), f(b, 12), f(b, 12), f(b, 4), f(b, 3), 3, 4, false)
		}},
		{"RoPE", func(b compute.Backend) { b.RoPE(f(b, 23), i(b, 2), f(b, 20), f(b, 20), 2, 3, 4, false) }},
		{"Attention", func(b compute.Backend) { a := attn(b); a.Out = f(b, 10); b.Attention(a) }},
		{"Attention", func(b compute.Backend) { a := attn(b); a.KV = 3; b.Attention(a) }},
		{"AttentionBackward", func(b compute.Backend) {
			a := attn(b)
			b.AttentionBackward(a, f(b, 2*4*4*8), f(b, 2*4*4*8), f(b, 2*4*2*8-1), f(b, 2*4*2*8))
		}},
		{"LogProbs", func(b compute.Backend) { h := head(b); h.LSE = f(b, 5); b.LogProbs(h) }},
		{"LogProbsBackward", func(b compute.Backend) { h := head(b); b.LogProbsBackward(h, f(b, 6), f(b, 23), nil) }},
		{"AdamW", func(b compute.Backend) {
			b.AdamW(f(b, 8), f(b, 8), f(b, 7), f(b, 8), compute.Adam{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1, GradScale: 1})
		}},
		{"Upload", func(b compute.Backend) { b.Upload(f(b, 4), []float32{1, 2, 3}) }},
		{"Copy", func(b compute.Backend) { b.Copy(f(b, 4), b.Alloc(compute.BF16, 4)) }},
		{"Free", func(b compute.Backend) { b.Free(b.Slice(f(b, 4), 1, 2)) }},
		{"Zero", func(b compute.Backend) { x := f(b, 4); b.Free(x); b.Zero(x) }}, // use after Free
	}
}

// sticky checks that each bad call leaves an error naming its op, that
// the first error is the one kept, and that later ops do nothing.
func sticky(t *testing.T, open func(t *testing.T) compute.Backend) {
	for _, c := range badCalls() {
		b := open(t)
		c.call(b)
		err := b.Sync()
		if err == nil {
			t.Errorf("%s with arguments that do not fit: Sync returned nil", c.op)
			continue
		}
		if !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s's error does not name the op: %v", c.op, err)
		}
	}
	b := open(t)
	x := b.Alloc(compute.F32, 4)
	b.Upload(x, []float32{1, 2, 3, 4})
	b.Add(x, b.Alloc(compute.F32, 3))
	first := b.Sync()
	b.Gemm(false, false, 2, 2, 2, 1, x, 1, x, 2, 0, x, 2)
	b.Scale(x, 2)
	if err := b.Sync(); err == nil || err.Error() != first.Error() {
		t.Errorf("after a second bad op Sync returned %v, want the first error %v", err, first)
	}
	got := []float32{-9, -9, -9, -9}
	b.Download(got, x)
	for _, g := range got {
		if g != -9 {
			t.Errorf("Download ran after a sticky error: %v", got)
			break
		}
	}
}
