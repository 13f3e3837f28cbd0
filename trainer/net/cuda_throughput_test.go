//go:build cuda

package net

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cuda"
	"mascot.dev/mascot/trainer/compute/cuda/cudatest"
	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

// The GPU check's throughput figures (scripts/gpu-check): the bf16 dense
// peak of this GPU measured by a cuBLAS product, then a LoRA r = 16
// reward-model step of a Qwen3-0.6B-shaped model and a LoRA r = 16 GRPO
// step of a 4-layer slice of Qwen3-8B's shape, each as tokens/s and as
// the fraction of that peak its model FLOPs reach (Counters.Model: the
// mathematics of the step, without recompute). Figures go to the test log
// and, when MASCOT_GPU_REPORT names a file, are appended to it.

// EnvReport names the file the figures are appended to.
const EnvReport = "MASCOT_GPU_REPORT"

func report(t *testing.T, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	if p := os.Getenv(EnvReport); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintln(f, line)
	}
}

// randomSource fills a model's base with uniform values of variance
// 1/in (norm weights near 1), generated in parallel and uploaded in the
// dtype the model stores (bfloat16 bits for a BF16 base), so a model of
// billions of parameters is built in seconds without a float32 copy.
type randomSource struct{ seed uint64 }

func (s randomSource) fill(m *Model, want map[string]*param) error {
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for k, name := range names {
		p := want[name]
		n := numel(p.shape)
		dt := m.dtypeFor(p, compute.BF16)
		p.v = m.be.Alloc(dt, n)
		a := math.Sqrt(3 / float64(p.shape[len(p.shape)-1]))
		base := 0.0
		if p.norm {
			a, base = 0.1, 1
		}
		seed := s.seed*1000003 + uint64(k)
		const chunk = 1 << 22
		for lo := 0; lo < n; lo += chunk {
			hi := min(n, lo+chunk)
			vals := uniform(seed, lo, hi, base, a)
			dst := m.be.Slice(p.v, lo, hi-lo)
			if dt == compute.BF16 {
				h := make([]uint16, len(vals))
				for i, v := range vals {
					h[i] = safetensors.Float32ToBF16(v)
				}
				m.be.Upload(dst, h)
			} else {
				m.be.Upload(dst, vals)
			}
		}
	}
	return m.be.Sync()
}

// uniform draws base + U(−a, a) for elements lo..hi of a stream, from a
// counter hash (so any split over goroutines gives the same values).
func uniform(seed uint64, lo, hi int, base, a float64) []float32 {
	out := make([]float32, hi-lo)
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(out); i += w {
				u := float64(compute.Uniform(seed, lo+i))
				out[i] = float32(base + a*(2*u-1))
			}
		}(g)
	}
	wg.Wait()
	return out
}

// gemmPeak is the bf16 dense rate of one cublasGemmEx (8192³, BF16
// operands, F32 result and accumulation), in FLOP/s: the median of five
// timed runs of four products each, after two warm-ups.
func gemmPeak(t *testing.T, be *cuda.Backend) float64 {
	const n = 8192
	a, b, c := be.Alloc(compute.BF16, n*n), be.Alloc(compute.BF16, n*n), be.Alloc(compute.F32, n*n)
	defer func() { be.Free(a); be.Free(b); be.Free(c) }()
	h := make([]uint16, n*n)
	for i := range h {
		h[i] = safetensors.Float32ToBF16(float32(compute.Uniform(1, i)) - 0.5)
	}
	be.Upload(a, h)
	be.Upload(b, h)
	run := func(k int) time.Duration {
		if err := be.Sync(); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		for i := 0; i < k; i++ {
			be.Gemm(false, true, n, n, n, 1, a, n, b, n, 0, c, n)
		}
		if err := be.Sync(); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	run(2)
	var rates []float64
	for i := 0; i < 5; i++ {
		rates = append(rates, 4*2*math.Pow(n, 3)/run(4).Seconds())
	}
	sort.Float64s(rates)
	return rates[2]
}

// stepRate times steps after one warm-up step: the median wall time of
// three, and the model FLOPs and real tokens one step costs.
func stepRate(t *testing.T, m *Model, step func() error) (sec, flops float64, tokens int64) {
	if err := step(); err != nil {
		t.Fatal(err)
	}
	var secs []float64
	for i := 0; i < 3; i++ {
		c0 := m.Counters()
		t0 := time.Now()
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if err := m.be.Sync(); err != nil {
			t.Fatal(err)
		}
		secs = append(secs, time.Since(t0).Seconds())
		c1 := m.Counters()
		flops, tokens = c1.Model-c0.Model, c1.Tokens-c0.Tokens
	}
	sort.Float64s(secs)
	return secs[1], flops, tokens
}

func qwen3_06B() qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", HiddenAct: "silu", VocabSize: 151936, HiddenSize: 1024, IntermediateSize: 3072,
		NumHiddenLayers: 28, NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128, RMSNormEps: 1e-6, RopeTheta: 1e6,
		MaxPositionEmbeddings: 40960, TieWordEmbeddings: true}
}

// qwen3_8BSlice is Qwen3-8B's shape with 4 of its 36 layers.
func qwen3_8BSlice() qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", HiddenAct: "silu", VocabSize: 151936, HiddenSize: 4096, IntermediateSize: 12288,
		NumHiddenLayers: 4, NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128, RMSNormEps: 1e-6, RopeTheta: 1e6,
		MaxPositionEmbeddings: 40960}
}

// rows is b random rows of n tokens.
func rows(b, n, vocab int, seed uint64) [][]int {
	out := make([][]int, b)
	for i := range out {
		out[i] = make([]int, n)
		for j := range out[i] {
			out[i][j] = int(compute.Uniform(seed, i*n+j) * float32(vocab))
		}
	}
	return out
}

func TestCudaThroughput(t *testing.T) {
	cudatest.RequireGPU(t)
	be := cudatest.Open(t, cuda.Options{})
	report(t, "device: %s", be.Describe())
	peak := gemmPeak(t, be)
	report(t, "bf16 GEMM peak (cublasGemmEx 8192³, BF16·BF16 → F32): %.1f TFLOP/s", peak/1e12)
	lc := pass.LoRAConfig{R: 16, Alpha: 32}

	t.Run("rm-0.6B", func(t *testing.T) {
		const B, T = 8, 1024
		m, err := New(be, qwen3_06B(), randomSource{1}, Options{LoRA: &lc, Train: pass.TrainLoRAAndScore, ScoreHead: true,
			BaseDType: compute.BF16, KeepActivations: true, ChunkTokens: B * T})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		opt, err := optim.NewDevice(optim.Config{LR: 1e-4}, be, m.TrainParams())
		if err != nil {
			t.Fatal(err)
		}
		defer opt.Close()
		ids := rows(B, T, m.Config.VocabSize, 2)
		at := make([]int, B)
		for i := range at {
			at[i] = T - 1
		}
		step := func() error {
			_, err := m.BackwardScores(bg, pass.Batch{IDs: ids}, pass.RunOptions{ScoreAt: at}, func(score [][]float64) ([][]float64, error) {
				var ch, rej []float64
				for i := 0; i < B; i += 2 {
					ch, rej = append(ch, score[i][T-1]), append(rej, score[i+1][T-1])
				}
				bt, err := loss.BradleyTerry(ch, rej, nil, 0)
				if err != nil {
					return nil, err
				}
				seed := make([][]float64, B)
				for i := range seed {
					seed[i] = make([]float64, T)
				}
				for p := range ch {
					seed[2*p][T-1], seed[2*p+1][T-1] = bt.DChosen[p], bt.DRejected[p]
				}
				return seed, nil
			})
			if err != nil {
				return err
			}
			_, err = opt.Step()
			return err
		}
		sec, flops, tokens := stepRate(t, m, step)
		report(t, "Qwen3-0.6B-shaped LoRA r=16 reward-model step (batch %d × %d tokens, BF16 base): %.3f s, %.0f tokens/s, %.1f model TFLOP/s = %.1f %% of the bf16 GEMM peak (target ≥ 30 %%)",
			B, T, sec, float64(tokens)/sec, flops/sec/1e12, 100*flops/sec/peak)
	})

	t.Run("grpo-8B-slice", func(t *testing.T) {
		const B, P, C = 8, 512, 512 // rows, prompt and completion tokens
		m, err := New(be, qwen3_8BSlice(), randomSource{3}, Options{LoRA: &lc, Train: pass.TrainLoRA,
			BaseDType: compute.BF16, KeepActivations: true, ChunkTokens: B * (P + C)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		opt, err := optim.NewDevice(optim.Config{LR: 1e-5}, be, m.TrainParams())
		if err != nil {
			t.Fatal(err)
		}
		defer opt.Close()
		ids := rows(B, P+C, m.Config.VocabSize, 4)
		from := make([]int, B)
		mask := make([][]float64, B)
		for i := range mask {
			from[i] = P - 1
			mask[i] = make([]float64, P+C)
			for p := P - 1; p < P+C-1; p++ {
				mask[i][p] = 1
			}
		}
		adv, err := loss.GroupAdvantages([]float64{0.1, 0.5, 0.3, 0.9, 0.2, 0.8, 0.4, 0.6}, 4, loss.ScaleGroup)
		if err != nil {
			t.Fatal(err)
		}
		// As trainer/train steps on-policy without KL: the seeds do not
		// depend on the log-probs, so the step is one backward pass.
		zeros := make([][]float64, B)
		for i := range zeros {
			zeros[i] = make([]float64, P+C)
		}
		res, err := loss.GRPO(loss.GRPOConfig{LossType: loss.LossDAPO, Epsilon: 0.2},
			loss.GRPOInput{LogP: zeros, Mask: mask, Advantages: adv})
		if err != nil {
			t.Fatal(err)
		}
		ro := pass.RunOptions{Temperature: 1, LogPFrom: from}
		step := func() error {
			if _, err := m.Backward(bg, pass.Batch{IDs: ids}, ro, res.DLogP, nil); err != nil {
				return err
			}
			_, err := opt.Step()
			return err
		}
		sec, flops, tokens := stepRate(t, m, step)
		report(t, "Qwen3-8B-shaped 4-layer slice LoRA r=16 GRPO step (batch %d × %d+%d tokens, BF16 base, LM head on the completions): %.3f s, %.0f tokens/s, %.1f model TFLOP/s = %.1f %% of the bf16 GEMM peak (target ≥ 40 %%)",
			B, P, C, sec, float64(tokens)/sec, flops/sec/1e12, 100*flops/sec/peak)
	})
}
