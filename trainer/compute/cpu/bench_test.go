package cpu_test

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
)

// Qwen3-0.6B's shapes: a batch of 16 rows of 1,024 tokens.
const (
	qTokens = 16 * 1024
	qHidden = 1024
	qInter  = 3072
	qHeads  = 16
	qKV     = 8
	qHeadD  = 128
	qVocab  = 151936
	qLoRA   = 10_092_544 // LoRA r=16 on q,k,v,o,gate,up,down of 28 layers
)

// benchOp is one op at a fixed shape: setup allocates and fills its
// tensors and returns the call to time and the cleanup.
type benchOp struct {
	name  string
	flops float64 // per call, 0 for a memory-bound op
	bytes float64 // moved per call, for the memory-bound ones
	setup func(b *cpu.Backend) (run func(), done func())
}

// filled allocates tensors of the given lengths filled with small random
// values (BF16 when bf is set).
func filled(b *cpu.Backend, bf bool, ns ...int) []compute.Tensor {
	r := rand.New(rand.NewSource(1))
	out := make([]compute.Tensor, len(ns))
	for i, n := range ns {
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(r.NormFloat64() * 0.5)
		}
		dt := compute.F32
		if bf {
			dt = compute.BF16
		}
		out[i] = b.Alloc(dt, n)
		b.Upload(out[i], v)
	}
	return out
}

func freer(b *cpu.Backend, ts ...[]compute.Tensor) func() {
	return func() {
		for _, g := range ts {
			for _, t := range g {
				b.Free(t)
			}
		}
	}
}

// gemmOp is C[m,n] = X[m,k]·W[n,k]ᵀ, the projection of a layer (W BF16
// when bf).
func gemmOp(name string, m, n, k int, bf bool) benchOp {
	return benchOp{name: name, flops: 2 * float64(m) * float64(n) * float64(k), setup: func(b *cpu.Backend) (func(), func()) {
		x := filled(b, false, m*k, m*n)
		w := filled(b, bf, n*k)
		return func() { b.Gemm(false, true, m, n, k, 1, x[0], k, w[0], k, 0, x[1], n) }, freer(b, x, w)
	}}
}

// transGemmOp is C = op(A)·op(B) with the given transposes, A and B
// stored densely.
func transGemmOp(name string, transA, transB bool, m, n, k int) benchOp {
	return benchOp{name: name, flops: 2 * float64(m) * float64(n) * float64(k), setup: func(b *cpu.Backend) (func(), func()) {
		x := filled(b, false, m*k, n*k, m*n)
		lda, ldb := k, n
		if transA {
			lda = m
		}
		if transB {
			ldb = k
		}
		return func() { b.Gemm(transA, transB, m, n, k, 1, x[0], lda, x[1], ldb, 0, x[2], n) }, freer(b, x)
	}}
}

// demoGemmOps are the demo's most frequent products (by FLOP, with the
// tiny Qwen3-shaped model its pretrain stage makes: head dimension 16,
// hidden 64, rows of up to two thousand tokens), the shapes the fallback
// BLAS must be fast at.
func demoGemmOps() []benchOp {
	return []benchOp{
		transGemmOp("demo_scores_128x128x16_nt", false, true, 128, 128, 16),
		transGemmOp("demo_proj_1937x128x64_nt", false, true, 1937, 128, 64),
		transGemmOp("demo_pv_128x16x128_nn", false, false, 128, 16, 128),
		transGemmOp("demo_dw_128x64x1937_tn", true, false, 128, 64, 1937),
	}
}

// benchLibs are the BLASes the product benchmarks compare: the built-in
// sgemm, OpenBLAS where it is installed, and gonum.
func benchLibs() []string {
	if _, err := cpu.New(cpu.Options{BLAS: "openblas"}); err != nil {
		return []string{"builtin", "gonum"}
	}
	return []string{"builtin", "openblas", "gonum"}
}

// BenchmarkSgemmDemoShapes times the demo's products through each BLAS.
func BenchmarkSgemmDemoShapes(bb *testing.B) {
	for _, lib := range benchLibs() {
		b := newBench(bb, cpu.Options{BLAS: lib})
		for _, op := range demoGemmOps() {
			bb.Run(b.BLAS()+"/"+op.name, func(bb *testing.B) { runBench(bb, b, op, peak(bb)) })
		}
	}
}

func lens(b *cpu.Backend, B, T int) compute.Tensor {
	l := b.Alloc(compute.I32, B)
	v := make([]int32, B)
	for i := range v {
		v[i] = int32(T)
	}
	b.Upload(l, v)
	return l
}

// attnFlops counts the products of the causal half: QKᵀ and PV forward;
// the backward recomputes QKᵀ and adds dP, dV, dQ and dK.
func attnFlops(B, T, H, D int, backward bool) float64 {
	pairs := float64(B) * float64(H) * float64(T) * float64(T+1) / 2
	if backward {
		return pairs * 2 * float64(D) * 5
	}
	return pairs * 2 * float64(D) * 2
}

func attnOp(B, T int, backward bool) benchOp {
	name := fmt.Sprintf("Attention B%d T%d H%d/%d D%d", B, T, qHeads, qKV, qHeadD)
	if backward {
		name = "AttentionBackward" + strings.TrimPrefix(name, "Attention")
	}
	return benchOp{name: name, flops: attnFlops(B, T, qHeads, qHeadD, backward), setup: func(b *cpu.Backend) (func(), func()) {
		nq, nkv := B*T*qHeads*qHeadD, B*T*qKV*qHeadD
		t := filled(b, false, nq, nkv, nkv, nq, B*qHeads*T)
		a := compute.Attn{Q: t[0], K: t[1], V: t[2], Out: t[3], LSE: t[4], Lens: lens(b, B, T), B: B, T: T, H: qHeads, KV: qKV, D: qHeadD, Scale: 0.088}
		b.Attention(a)
		if !backward {
			return func() { b.Attention(a) }, freer(b, t, []compute.Tensor{a.Lens})
		}
		g := filled(b, false, nq, nq, nkv, nkv)
		return func() { b.AttentionBackward(a, g[0], g[1], g[2], g[3]) }, freer(b, t, g, []compute.Tensor{a.Lens})
	}}
}

func headOp(N int, backward bool) benchOp {
	name := fmt.Sprintf("LogProbs N%d V%d D%d bf16", N, qVocab, qHidden)
	fl := 2 * float64(N) * qVocab * qHidden
	if backward {
		name, fl = "LogProbsBackward"+strings.TrimPrefix(name, "LogProbs"), 3*fl // logits again, dHidden
	}
	return benchOp{name: name, flops: fl, setup: func(b *cpu.Backend) (func(), func()) {
		x := filled(b, false, N*qHidden, N, N, N, N*qHidden)
		w := filled(b, true, qVocab*qHidden)
		tg := b.Alloc(compute.I32, N)
		ids := make([]int32, N)
		for i := range ids {
			ids[i] = int32(i * 7919 % qVocab)
		}
		b.Upload(tg, ids)
		h := compute.LMHead{Hidden: x[0], Head: w[0], Targets: tg, LogP: x[1], LSE: x[2], N: N, D: qHidden, V: qVocab, InvTemp: 1}
		b.LogProbs(h)
		done := freer(b, x, w, []compute.Tensor{tg})
		if !backward {
			return func() { b.LogProbs(h) }, done
		}
		return func() { b.LogProbsBackward(h, x[3], x[4], nil) }, done
	}}
}

// memOp is a memory-bound op over tensors of n F32 elements.
func memOp(name string, n, tensors int, bytesPer float64, call func(b *cpu.Backend, t []compute.Tensor)) benchOp {
	return benchOp{name: name, bytes: bytesPer * float64(n), setup: func(b *cpu.Backend) (func(), func()) {
		lens := make([]int, tensors)
		for i := range lens {
			lens[i] = n
		}
		t := filled(b, false, lens...)
		return func() { call(b, t) }, freer(b, t)
	}}
}

// qwenOps are the ops at Qwen3-0.6B's shapes. attnB and headN shrink the
// two largest (attention's batch, the LM head's rows) for a quick look.
func qwenOps(attnB, headN int) []benchOp {
	N, M := qTokens, qTokens*qHidden
	return []benchOp{
		gemmOp("Gemm q_proj 16384×2048×1024 f32·bf16ᵀ", N, qHeads*qHeadD, qHidden, true),
		gemmOp("Gemm gate_proj 16384×3072×1024 f32·bf16ᵀ", N, qInter, qHidden, true),
		gemmOp("Gemm down_proj 16384×1024×3072 f32·bf16ᵀ", N, qHidden, qInter, true),
		gemmOp("Gemm down_proj 16384×1024×3072 f32·f32ᵀ", N, qHidden, qInter, false),
		attnOp(attnB, 1024, false),
		attnOp(attnB, 1024, true),
		headOp(headN, false),
		headOp(headN, true),
		{name: "RMSNorm 16384×1024", bytes: 2 * 4 * float64(M), setup: func(b *cpu.Backend) (func(), func()) {
			t := filled(b, false, M, M, N, qHidden)
			return func() { b.RMSNorm(t[1], t[2], t[0], t[3], N, qHidden, 1e-6) }, freer(b, t)
		}},
		{name: "RMSNormBackward 16384×1024 (+dw)", bytes: 4 * 4 * float64(M), setup: func(b *cpu.Backend) (func(), func()) {
			t := filled(b, false, M, M, M, N, qHidden, qHidden)
			return func() { b.RMSNormBackward(t[0], t[5], t[1], t[2], t[4], t[3], N, qHidden, false) }, freer(b, t)
		}},
		{name: "RoPE q 16384×16×128", bytes: 2 * 4 * float64(N*qHeads*qHeadD), setup: func(b *cpu.Backend) (func(), func()) {
			t := filled(b, false, N*qHeads*qHeadD, 1024*64, 1024*64)
			pos := b.Alloc(compute.I32, N)
			p := make([]int32, N)
			for i := range p {
				p[i] = int32(i % 1024)
			}
			b.Upload(pos, p)
			return func() { b.RoPE(t[0], pos, t[1], t[2], N, qHeads, qHeadD, false) }, freer(b, t, []compute.Tensor{pos})
		}},
		memOp("SwiGLU 16384×3072", N*qInter, 3, 12, func(b *cpu.Backend, t []compute.Tensor) { b.SwiGLU(t[0], t[1], t[2]) }),
		memOp("SwiGLUBackward 16384×3072", N*qInter, 5, 20, func(b *cpu.Backend, t []compute.Tensor) { b.SwiGLUBackward(t[0], t[1], t[2], t[3], t[4]) }),
		memOp("Dropout 16384×1024", M, 2, 8, func(b *cpu.Backend, t []compute.Tensor) { b.Dropout(t[0], t[1], 0.1, 7) }),
		memOp("Add 16384×1024", M, 2, 12, func(b *cpu.Backend, t []compute.Tensor) { b.Add(t[0], t[1]) }),
		memOp("Axpy 16384×1024", M, 2, 12, func(b *cpu.Backend, t []compute.Tensor) { b.Axpy(t[0], 0.5, t[1]) }),
		memOp("Scale 16384×1024", M, 1, 8, func(b *cpu.Backend, t []compute.Tensor) { b.Scale(t[0], 0.999) }),
		memOp("SumSquares LoRA 10.1M", qLoRA, 1, 4, func(b *cpu.Backend, t []compute.Tensor) { b.SumSquares(t[0]) }),
		memOp("AdamW LoRA 10.1M", qLoRA, 4, 28, func(b *cpu.Backend, t []compute.Tensor) {
			b.AdamW(t[0], t[1], t[2], t[3], compute.Adam{LR: 1e-4, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Step: 3, GradScale: 1})
		}),
		{name: "Gather embeddings 16384 of 151936×1024 bf16", bytes: 6 * float64(M), setup: func(b *cpu.Backend) (func(), func()) {
			w := filled(b, true, qVocab*qHidden)
			out := filled(b, false, M)
			idx := b.Alloc(compute.I32, N)
			ids := make([]int32, N)
			for i := range ids {
				ids[i] = int32(i * 7919 % qVocab)
			}
			b.Upload(idx, ids)
			return func() { b.Gather(out[0], w[0], idx, qHidden) }, freer(b, w, out, []compute.Tensor{idx})
		}},
		{name: "ScatterAdd 16384 rows into 151936×1024", bytes: 12 * float64(M), setup: func(b *cpu.Backend) (func(), func()) {
			t := filled(b, false, qVocab*qHidden, M)
			idx := b.Alloc(compute.I32, N)
			ids := make([]int32, N)
			for i := range ids {
				ids[i] = int32(i * 7919 % qVocab)
			}
			b.Upload(idx, ids)
			return func() { b.ScatterAdd(t[0], t[1], idx, qHidden) }, freer(b, t, []compute.Tensor{idx})
		}},
	}
}

func newBench(tb testing.TB, o cpu.Options) *cpu.Backend {
	b, err := cpu.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// runBench times op as a Go benchmark and reports its rate and its ratio
// to the sgemm peak measured in the same process.
func runBench(bb *testing.B, b *cpu.Backend, op benchOp, peak float64) {
	run, done := op.setup(b)
	defer done()
	run()
	bb.ResetTimer()
	for i := 0; i < bb.N; i++ {
		run()
	}
	bb.StopTimer()
	if err := b.Sync(); err != nil {
		bb.Fatal(err)
	}
	s := bb.Elapsed().Seconds() / float64(bb.N)
	if op.flops > 0 {
		bb.ReportMetric(op.flops/s/1e9, "GFLOP/s")
		bb.ReportMetric(op.flops/s/peak, "of-peak")
	} else {
		bb.ReportMetric(op.bytes/s/1e9, "GB/s")
	}
}

var peakOnce struct {
	v    float64
	done bool
}

// peak is the 2048³ sgemm rate of the default backend (the built-in
// sgemm unless MASCOT_BLAS says otherwise), measured once per process:
// the anchor of every "of-peak".
func peak(tb testing.TB) float64 {
	if !peakOnce.done {
		peakOnce.v, peakOnce.done = cpu.MeasurePeak(newBench(tb, cpu.Options{}), 2048), true
	}
	return peakOnce.v
}

// BenchmarkSgemmPeak is the anchor: square and Qwen3-shaped F32 products
// (a projection X·Wᵀ of 4,096 tokens) through each BLAS.
func BenchmarkSgemmPeak(bb *testing.B) {
	for _, lib := range benchLibs() {
		b := newBench(bb, cpu.Options{BLAS: lib})
		ops := []benchOp{
			gemmOp("n1024", 1024, 1024, 1024, false),
			gemmOp("n2048", 2048, 2048, 2048, false),
			gemmOp("qwen_gate_4096x3072x1024", 4096, qInter, qHidden, false),
			gemmOp("qwen_down_4096x1024x3072", 4096, qHidden, qInter, false),
		}
		if lib != "gonum" { // a minute per product
			ops = append(ops, gemmOp("n4096", 4096, 4096, 4096, false))
		}
		for _, op := range ops {
			bb.Run(b.BLAS()+"/"+op.name, func(bb *testing.B) { runBench(bb, b, op, peak(bb)) })
		}
	}
}

// BenchmarkOps times every op at Qwen3-0.6B's shapes (attention at B=4
// and the LM head at 1,024 rows; BenchmarkReport runs the full batch).
func BenchmarkOps(bb *testing.B) {
	b := newBench(bb, cpu.Options{})
	p := peak(bb)
	for _, op := range qwenOps(4, 1024) {
		bb.Run(strings.ReplaceAll(op.name, " ", "_"), func(bb *testing.B) { runBench(bb, b, op, p) })
	}
}

// BenchmarkReport runs every op for MASCOT_BENCH_ROUNDS rounds (default
// 3) and prints one table for docs/benchmarks.md: min/median/max wall
// time, CPU-seconds per call, the median rate and its ratio to the sgemm
// peak (2048³) measured right before and right after the op's rounds in
// this process (on a shared machine the load drifts between ops), and the
// load average before and after; beside the wall-clock ratio, the same
// ratio per CPU-second (op FLOP per CPU-second over the sgemm's), which a
// shared machine's load disturbs less. MASCOT_BENCH_OPS filters the ops
// by a substring of their names.
func BenchmarkReport(bb *testing.B) {
	rounds := 3
	if v := os.Getenv("MASCOT_BENCH_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	filter := os.Getenv("MASCOT_BENCH_OPS")
	b := newBench(bb, cpu.Options{})
	load0 := loadAvg()
	p := cpu.MeasurePeak(b, 2048)
	g := newBench(bb, cpu.Options{BLAS: "gonum"})
	gp := cpu.MeasurePeak(g, 1024)
	var out strings.Builder
	fmt.Fprintf(&out, "%s\nsgemm peak 2048³: %.1f GFLOP/s (%s); gonum 1024³: %.1f GFLOP/s\n", b.Describe(), p/1e9, b.BLAS(), gp/1e9)
	fmt.Fprintf(&out, "| op | wall min / median / max (s) | CPU-s per call | rate (median) | sgemm beside it | ratio | per CPU-s: op / sgemm | ratio per CPU-s |\n|---|---|---|---|---|---|---|---|\n")
	for _, op := range qwenOps(16, 1024) {
		if filter != "" && !strings.Contains(op.name, filter) {
			continue
		}
		run, done := op.setup(b)
		run()
		c0 := cpuSeconds()
		near := cpu.MeasurePeak(b, 2048)
		nearCPU := cpuSeconds() - c0
		var walls []float64
		cpu0 := cpuSeconds()
		for r := 0; r < rounds; r++ {
			t0 := time.Now()
			run()
			walls = append(walls, time.Since(t0).Seconds())
		}
		cpuPer := (cpuSeconds() - cpu0) / float64(rounds)
		c0 = cpuSeconds()
		near = (near + cpu.MeasurePeak(b, 2048)) / 2
		// MeasurePeak runs four products (a warm-up and three).
		nearCPU = 8 * 2 * 2048 * 2048 * 2048 / (nearCPU + cpuSeconds() - c0)
		done()
		if err := b.Sync(); err != nil {
			bb.Fatal(err)
		}
		slices.Sort(walls)
		med := walls[len(walls)/2]
		rate, frac, perCPU, fracCPU := "", "", "", ""
		if op.flops > 0 {
			rate, frac = fmt.Sprintf("%.1f GFLOP/s", op.flops/med/1e9), fmt.Sprintf("%.2f", op.flops/med/near)
			perCPU = fmt.Sprintf("%.1f / %.1f GFLOP", op.flops/cpuPer/1e9, nearCPU/1e9)
			fracCPU = fmt.Sprintf("%.2f", op.flops/cpuPer/nearCPU)
		} else {
			rate = fmt.Sprintf("%.1f GB/s", op.bytes/med/1e9)
		}
		fmt.Fprintf(&out, "| %s | %.4f / %.4f / %.4f | %.4f | %s | %.1f GFLOP/s | %s | %s | %s |\n", op.name, walls[0], med, walls[len(walls)-1], cpuPer, rate, near/1e9, frac, perCPU, fracCPU)
	}
	fmt.Fprintf(&out, "load average before %s, after %s\n", load0, loadAvg())
	fmt.Print(out.String())
	for i := 0; i < bb.N; i++ {
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
