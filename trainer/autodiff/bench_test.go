//go:build unix && !cuda

package autodiff

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"

	"mascot.dev/mascot/trainer/qwen3"
)

// benchConfig is the fixed tiny config of the training benchmarks.
func benchConfig() qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", VocabSize: 512, HiddenSize: 128, IntermediateSize: 384,
		NumHiddenLayers: 4, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 32,
		RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true}
}

const benchB, benchT = 8, 64

// forwardFLOPs counts the multiply-adds ×2 of one forward over B·T tokens:
// every projection and the LM head, plus scores and weighted values over
// all T keys (the usual convention; the fused attention skips the masked
// upper triangle, so it does about half of those).
func forwardFLOPs(c qwen3.Config, B, T int) float64 {
	D, I, H, K, d, V, L := c.HiddenSize, c.IntermediateSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.VocabSize, c.NumHiddenLayers
	perTok := L*(D*(H+2*K)*d+H*d*D+3*D*I+2*H*d*T) + D*V
	return 2 * float64(perTok) * float64(B*T)
}

// peaks caches the sgemm peak of each BLAS: [wall GFLOP/s, GFLOP per CPU-second].
var peaks = map[string][2]float64{}

// cpuSeconds is the process's user+system CPU time. Wall-clock rates
// suffer when other work shares the cores; rates per CPU-second do not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// sgemmPeak measures the active BLAS's Sgemm on 512×512 matrices: the
// best wall-clock GFLOP/s of ten runs (sgemmPeakCPU: GFLOP per CPU-second).
func sgemmPeakCPU() float64 { sgemmPeak(); return peaks[BLAS][1] }

func sgemmPeak() float64 {
	if p, ok := peaks[BLAS]; ok {
		return p[0]
	}
	const n = 512
	mk := func() []float32 {
		g := make([]float32, n*n)
		for i := range g {
			g[i] = rand.Float32()
		}
		return g
	}
	a, b, c := mk(), mk(), mk()
	impl := G.WhichBLAS()
	impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n) // warm up
	best := 0.0
	const reps = 10
	cpu0 := cpuSeconds()
	for range reps {
		start := time.Now()
		impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
		best = max(best, 2*n*n*n/time.Since(start).Seconds()/1e9)
	}
	peaks[BLAS] = [2]float64{best, reps * 2 * n * n * n / (cpuSeconds() - cpu0) / 1e9}
	return best
}

// eachBLAS runs f as a sub-benchmark per BLAS of this build ("gonum";
// "openblas" too with -tags openblas), leaving the default active after.
func eachBLAS(b *testing.B, f func(b *testing.B)) {
	defer useBLAS(BLAS)
	for _, name := range blasNames() {
		b.Run(name, func(b *testing.B) {
			useBLAS(name)
			f(b)
		})
	}
}

func BenchmarkSgemm512(b *testing.B) {
	eachBLAS(b, func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(sgemmPeak(), "GFLOP/s")
		b.ReportMetric(sgemmPeakCPU(), "GFLOP/cpu-s")
	})
}

func benchTrain(b *testing.B, o Options, flopFactor float64) {
	eachBLAS(b, func(b *testing.B) { benchStep(b, benchConfig(), o, benchB, benchT, flopFactor) })
	b.Run("net", func(b *testing.B) { benchNet(b, benchConfig(), o, benchB, benchT, flopFactor, false) })
}

// benchStep times forward+backward passes of a B×T batch of random rows
// on a random model of cfg.
func benchStep(b *testing.B, cfg qwen3.Config, o Options, B, T int, flopFactor float64) {
	cfg.HiddenAct = "silu"
	base, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(cfg, base.Weights, o)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := Batch{}
	seed := make([][]float64, B)
	for i := range B {
		batch.IDs = append(batch.IDs, randomRows(rng, cfg.VocabSize, T)[0])
		seed[i] = make([]float64, T)
		for j := range seed[i] {
			seed[i][j] = -1.0 / float64(B*T)
		}
	}
	if _, err := m.Backward(bg, batch, RunOptions{}, seed, nil); err != nil { // compile
		b.Fatal(err)
	}
	sgemmPeak()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for b.Loop() {
		if _, err := m.Backward(bg, batch, RunOptions{}, seed, nil); err != nil {
			b.Fatal(err)
		}
	}
	report(b, B*T, flopFactor*forwardFLOPs(cfg, B, T), time.Since(start).Seconds(), cpuSeconds()-cpu0)
}

// report prints tokens/s, GFLOP/s and the ratios to the active BLAS's
// sgemm peak, by wall clock and by CPU time.
func report(b *testing.B, tokens int, flopsPerStep, sec, cpu float64) {
	steps := float64(b.N)
	gflops := flopsPerStep * steps / sec / 1e9
	b.ReportMetric(float64(tokens)*steps/sec, "tokens/s")
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(gflops/sgemmPeak(), "of_sgemm_peak")
	if cpu > 0 {
		b.ReportMetric(flopsPerStep*steps/cpu/1e9/sgemmPeakCPU(), "of_sgemm_peak_cpu")
	}
}

// BenchmarkTrainFull is one forward+backward of every weight: 3× the
// forward FLOPs (weight and input gradients).
func BenchmarkTrainFull(b *testing.B) { benchTrain(b, Options{Train: TrainAll}, 3) }

// BenchmarkTrainLoRA trains r=16 adapters on every projection; the frozen
// weights need input gradients only, so ≈ 2× the forward FLOPs (the
// adapters' own FLOPs are left out).
func BenchmarkTrainLoRA(b *testing.B) {
	benchTrain(b, Options{Train: TrainLoRA, LoRA: &LoRAConfig{R: 16, Alpha: 32}}, 2)
}

// BenchmarkDemoGRPOStep is one GRPO micro-batch of the demo's director
// stage: a group of 4 completions of byte-level prompts 2,048 tokens long
// (a QMSum-length prompt), r=8 LoRA on every projection.
func BenchmarkDemoGRPOStep(b *testing.B) {
	o := Options{Train: TrainLoRA, LoRA: &LoRAConfig{R: 8, Alpha: 16}}
	eachBLAS(b, func(b *testing.B) { benchStep(b, demoConfig(), o, 4, 2048, 2) })
	b.Run("net", func(b *testing.B) { benchNet(b, demoConfig(), o, 4, 2048, 2, false) })
}

// BenchmarkForward is one forward pass (sampling-free log-probs).
func BenchmarkForward(b *testing.B) {
	eachBLAS(b, func(b *testing.B) {
		cfg := benchConfig()
		cfg.HiddenAct = "silu"
		base, _ := qwen3.NewRandom(cfg, 1)
		m, err := New(cfg, base.Weights, Options{})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		batch := Batch{}
		for range benchB {
			batch.IDs = append(batch.IDs, randomRows(rng, cfg.VocabSize, benchT)[0])
		}
		if _, err := m.Forward(bg, batch, RunOptions{}); err != nil {
			b.Fatal(err)
		}
		sgemmPeak()
		b.ResetTimer()
		start, cpu0 := time.Now(), cpuSeconds()
		for b.Loop() {
			if _, err := m.Forward(bg, batch, RunOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, benchB*benchT, forwardFLOPs(cfg, benchB, benchT), time.Since(start).Seconds(), cpuSeconds()-cpu0)
	})
	b.Run("net", func(b *testing.B) { benchNet(b, benchConfig(), Options{}, benchB, benchT, 1, true) })
}

// BenchmarkDemoPretrainStep is one step of the demo's pretrain stage: 8
// rows of 96 byte-level tokens, every weight trained.
func BenchmarkDemoPretrainStep(b *testing.B) {
	eachBLAS(b, func(b *testing.B) { benchStep(b, demoConfig(), Options{Train: TrainAll}, 8, 96, 3) })
	b.Run("net", func(b *testing.B) { benchNet(b, demoConfig(), Options{Train: TrainAll}, 8, 96, 3, false) })
}
