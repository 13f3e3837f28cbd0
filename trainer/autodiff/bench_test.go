//go:build unix

package autodiff

import (
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

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
// all T keys (the graph masks, it does not skip, the upper triangle).
func forwardFLOPs(c qwen3.Config, B, T int) float64 {
	D, I, H, K, d, V, L := c.HiddenSize, c.IntermediateSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.VocabSize, c.NumHiddenLayers
	perTok := L*(D*(H+2*K)*d+H*d*D+3*D*I+2*H*d*T) + D*V
	return 2 * float64(perTok) * float64(B*T)
}

var (
	peakOnce      sync.Once
	peak, peakCPU float64
)

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

// sgemmPeak measures gonum blas32 Sgemm on 512×512 matrices: the best
// wall-clock GFLOP/s of ten runs (sgemmPeakCPU: GFLOP per CPU-second).
func sgemmPeakCPU() float64 { sgemmPeak(); return peakCPU }

func sgemmPeak() float64 {
	peakOnce.Do(func() {
		const n = 512
		mk := func() blas32.General {
			g := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
			for i := range g.Data {
				g.Data[i] = rand.Float32()
			}
			return g
		}
		a, b, c := mk(), mk(), mk()
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c) // warm up
		best := 0.0
		const reps = 10
		cpu0 := cpuSeconds()
		for range reps {
			start := time.Now()
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
			best = max(best, 2*n*n*n/time.Since(start).Seconds()/1e9)
		}
		peak = best
		peakCPU = reps * 2 * n * n * n / (cpuSeconds() - cpu0) / 1e9
	})
	return peak
}

func BenchmarkSgemm512(b *testing.B) {
	for b.Loop() {
	}
	b.ReportMetric(sgemmPeak(), "GFLOP/s")
	b.ReportMetric(sgemmPeakCPU(), "GFLOP/cpu-s")
}

func benchTrain(b *testing.B, o Options, flopFactor float64) {
	cfg := benchConfig()
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
	batch := Batch{IDs: randomRows(rng, cfg.VocabSize, benchB, benchB, benchB, benchB, benchB, benchB, benchB, benchB)}
	for i := range batch.IDs {
		batch.IDs[i] = randomRows(rng, cfg.VocabSize, benchT)[0]
	}
	seed := make([][]float64, benchB)
	for i := range seed {
		seed[i] = make([]float64, benchT)
		for j := range seed[i] {
			seed[i][j] = -1.0 / (benchB * benchT)
		}
	}
	if _, err := m.Backward(batch, RunOptions{}, seed, nil); err != nil { // compile
		b.Fatal(err)
	}
	sgemmPeak()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for b.Loop() {
		if _, err := m.Backward(batch, RunOptions{}, seed, nil); err != nil {
			b.Fatal(err)
		}
	}
	report(b, flopFactor*forwardFLOPs(cfg, benchB, benchT), time.Since(start).Seconds(), cpuSeconds()-cpu0)
}

// report prints tokens/s, GFLOP/s and the ratios to the sgemm peak, by
// wall clock and by CPU time.
func report(b *testing.B, flopsPerStep, sec, cpu float64) {
	steps := float64(b.N)
	gflops := flopsPerStep * steps / sec / 1e9
	b.ReportMetric(float64(benchB*benchT)*steps/sec, "tokens/s")
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

// BenchmarkForward is one forward pass (sampling-free log-probs).
func BenchmarkForward(b *testing.B) {
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
	if _, err := m.Forward(batch, RunOptions{}); err != nil {
		b.Fatal(err)
	}
	sgemmPeak()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for b.Loop() {
		if _, err := m.Forward(batch, RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, forwardFLOPs(cfg, benchB, benchT), time.Since(start).Seconds(), cpuSeconds()-cpu0)
}
