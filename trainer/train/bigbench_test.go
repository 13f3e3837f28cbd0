//go:build linux

package train

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/internal/qwen3tok"
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/net"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
	"mascot.dev/mascot/trainer/tokenizer"
)

// The paper-size benchmarks (docs/benchmarks.md) train a LoRA r = 16
// reward model at sequence length 1,024 and batch 8 pairs, with the real
// Qwen3 tokenizer and QMSum prompts, on a random BF16 checkpoint of a
// real shape generated in a temp dir (a few GB; no download):
//
//	MASCOT_BENCH_BIG=1 go test -run '^$' -bench 'BigRewardModel' -benchtime 1x -timeout 3h ./trainer/train
//
// Run one benchmark per process (-bench BigRewardModel/0.6B or /8B-4L):
// peak RSS (VmHWM) is the process's. MASCOT_BENCH_STEPS (default 1),
// MASCOT_BENCH_PAIRS (default 8) and MASCOT_BENCH_LAYERS (default the
// real count) shrink a run. Each prints peak RSS, the hardware and model
// FLOP/s as fractions of the sgemm peak measured in the same process,
// CPU-seconds beside wall time, and the load average.

// qwen3_06B is Qwen/Qwen3-0.6B's config.json.
func qwen3_06B() qwen3.Config {
	return qwen3.Config{Architectures: []string{qwen3.CausalLM}, ModelType: "qwen3", VocabSize: 151936, HiddenSize: 1024,
		IntermediateSize: 3072, NumHiddenLayers: 28, NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128,
		HiddenAct: "silu", MaxPositionEmbeddings: 40960, RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
		BOSTokenID: 151643, EOSTokenID: 151645, TorchDtype: "bfloat16"}
}

// qwen3_8BSlice is Qwen/Qwen3-8B's shape cut to 4 layers.
func qwen3_8BSlice() qwen3.Config {
	c := qwen3_06B()
	c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers, c.NumAttentionHeads = 4096, 12288, 4, 32
	c.TieWordEmbeddings = false
	return c
}

func BenchmarkBigRewardModel(b *testing.B) {
	if os.Getenv("MASCOT_BENCH_BIG") != "1" {
		b.Skip("set MASCOT_BENCH_BIG=1 to run the paper-size benchmarks (minutes, several GB; see docs/benchmarks.md)")
	}
	b.Run("0.6B", func(b *testing.B) { bigRM(b, qwen3_06B()) })
	b.Run("8B-4L", func(b *testing.B) { bigRM(b, qwen3_8BSlice()) })
	b.Run("0.6B-cancel", func(b *testing.B) { bigCancel(b, qwen3_06B()) })
}

// bigCancel measures how long a reward-model training pass over 8 pairs
// × 1,024 tokens of a Qwen3-0.6B-shaped network takes to return after its
// context is cancelled, at several points of the pass.
func bigCancel(b *testing.B, cfg qwen3.Config) {
	cfg.NumHiddenLayers = envInt("MASCOT_BENCH_LAYERS", cfg.NumHiddenLayers)
	dir := b.TempDir()
	if err := writeRandomCheckpoint(dir, cfg); err != nil {
		b.Fatal(err)
	}
	be, err := cpu.New(cpu.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := net.Load(be, dir, net.Options{LoRA: &pass.LoRAConfig{R: 16, Alpha: 32}, Train: pass.TrainLoRAAndScore, ScoreHead: true})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	var batch pass.Batch
	at := make([]int, 16)
	for r := range 16 {
		row := make([]int, 1024)
		for i := range row {
			row[i] = rng.IntN(151643)
		}
		batch.IDs, at[r] = append(batch.IDs, row), 1023
	}
	seed := func(sc [][]float64) ([][]float64, error) { return make([][]float64, len(sc)), nil }
	var worst time.Duration
	for b.Loop() {
		for _, after := range []time.Duration{2 * time.Second, 7 * time.Second, 20 * time.Second, 45 * time.Second} {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan time.Time, 1)
			go func() {
				_, _ = m.BackwardScores(ctx, batch, pass.RunOptions{ScoreAt: at}, seed)
				done <- time.Now()
			}()
			time.Sleep(after)
			cancel()
			t0 := time.Now()
			lat := (<-done).Sub(t0)
			if lat < 0 {
				lat = 0 // the pass had finished
			}
			worst = max(worst, lat)
			b.Logf("cancelled %v into the pass: returned %v later (load %s)", after, lat.Round(time.Millisecond), loadAvg())
		}
	}
	b.ReportMetric(worst.Seconds(), "worst_cancel_s")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func bigRM(b *testing.B, cfg qwen3.Config) {
	cfg.NumHiddenLayers = envInt("MASCOT_BENCH_LAYERS", cfg.NumHiddenLayers)
	steps, npairs := envInt("MASCOT_BENCH_STEPS", 1), envInt("MASCOT_BENCH_PAIRS", 8)
	const seqLen = 1024
	tokDir, err := qwen3tok.Dir()
	if err != nil {
		b.Fatal(err)
	}
	tk, err := tokenizer.Load(tokDir)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	t0 := time.Now()
	if err := writeRandomCheckpoint(dir, cfg); err != nil {
		b.Fatal(err)
	}
	b.Logf("random %s checkpoint (%d parameters, BF16) written in %.0f s", shapeName(cfg), cfg.NumParams(), time.Since(t0).Seconds())
	tok := benchTok{tk}
	pairs, meanLen := qmsumPairs(b, tok, npairs*steps, seqLen)
	be, err := cpu.New(cpu.Options{})
	if err != nil {
		b.Fatal(err)
	}
	peak, peakCPU := measurePeak(be)
	load0 := loadAvg()
	var ms []Metrics
	var hwmTrain int64
	var cpuStep []float64
	cpu0 := cpuSeconds()
	for b.Loop() {
		ms, cpuStep = nil, nil
		last := cpuSeconds()
		_, err := TrainRewardModel(context.Background(), RMJob{
			Options: Options{Steps: steps, BatchSize: npairs, MaxLength: seqLen, Seed: 1, Backend: be,
				Optim: optim.Config{LR: 1e-4}, LoRA: &pass.LoRAConfig{R: 16, Alpha: 32},
				OutputDir: filepath.Join(b.TempDir(), "rm"),
				OnStep: func(m Metrics) {
					now := cpuSeconds()
					ms, cpuStep = append(ms, m), append(cpuStep, now-last)
					last, hwmTrain = now, vmHWM()
				}},
			BaseDir: dir, Tokenizer: tok, Pairs: pairs,
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	cpuAll := cpuSeconds() - cpu0
	peakAfter, peakCPUAfter := measurePeak(be)
	hwm := vmHWM()
	var wall, cpuS, hw, model float64
	var tokens int
	for i, m := range ms {
		w := float64(m.Tokens) / m.TokensPerSec
		wall, cpuS, hw, model, tokens = wall+w, cpuS+cpuStep[i], hw+m.HardwareFLOPs, model+m.ModelFLOPs, tokens+m.Tokens
	}
	real := float64(2 * npairs * steps * meanLen) // real tokens trained (chosen and rejected rows)
	params := cfg.NumParams()
	b.Logf("%s, %d layers: %d step(s) of %d pairs, mean sequence %d tokens; backend %s", shapeName(cfg), cfg.NumHiddenLayers, steps, npairs, meanLen, be.Describe())
	b.Logf("sgemm peak %.1f GFLOP/s before, %.1f after (1024³, same process); per CPU-second %.1f and %.1f GFLOP (2048³ for 3 s; %d threads)",
		peak/1e9, peakAfter/1e9, peakCPU/1e9, peakCPUAfter/1e9, be.Threads())
	peak, peakCPU = max(peak, peakAfter), max(peakCPU, peakCPUAfter)
	b.Logf("step wall %.1f s, CPU %.1f s (whole run incl. load and save: CPU %.1f s); load average %s → %s", wall, cpuS, cpuAll, load0, loadAvg())
	b.Logf("hardware %.2f TFLOP = %.1f GFLOP/s = %.3f of peak (%.3f per CPU-second); model %.2f TFLOP = %.1f GFLOP/s = %.3f of peak (%.3f per CPU-second)",
		hw/1e12, hw/wall/1e9, hw/wall/peak, hw/cpuS/peakCPU, model/1e12, model/wall/1e9, model/wall/peak, model/cpuS/peakCPU)
	b.Logf("tokens/s %.1f (real tokens, fwd+bwd); peak RSS %.2f GiB during training, %.2f GiB with the merged save; %.2f bytes per parameter (%d parameters)",
		real/wall, gib(hwmTrain), gib(hwm), float64(hwmTrain)/float64(params), params)
	b.ReportMetric(hw/wall/peak, "hw_of_peak")
	b.ReportMetric(hw/cpuS/peakCPU, "hw_of_peak_cpu")
	b.ReportMetric(model/wall/peak, "model_of_peak")
	b.ReportMetric(gib(hwmTrain), "GiB_peak_rss")
	b.ReportMetric(real/wall, "tokens/s")
}

// measurePeak is cpu.MeasurePeak at 1024³ (the best wall rate) and the
// rate per CPU-second of 2048³ products run for at least three seconds
// (a short run's CPU time is too coarse, and OpenBLAS's threads spin
// between calls), which other jobs on the cores lower much less than the
// wall rate.
func measurePeak(be *cpu.Backend) (wall, perCPU float64) {
	wall = cpu.MeasurePeak(be, 1024)
	const n = 2048
	x, y, z := be.Alloc(compute.F32, n*n), be.Alloc(compute.F32, n*n), be.Alloc(compute.F32, n*n)
	defer func() { be.Free(x); be.Free(y); be.Free(z) }()
	be.Gemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
	c0, t0, reps := cpuSeconds(), time.Now(), 0
	for time.Since(t0) < 3*time.Second || reps < 3 {
		be.Gemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
		reps++
	}
	return wall, float64(reps) * 2 * n * n * n / (cpuSeconds() - c0)
}

func shapeName(c qwen3.Config) string {
	return fmt.Sprintf("Qwen3 %d/%d/%d heads %d/%d", c.HiddenSize, c.IntermediateSize, c.VocabSize, c.NumAttentionHeads, c.NumKeyValueHeads)
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }

// writeRandomCheckpoint writes config.json and a BF16 model.safetensors
// of cfg, every matrix N(0, 0.02²) and every norm weight 1 (qwen3.NewRandom's
// distribution), generated a chunk at a time (never held whole).
func writeRandomCheckpoint(dir string, cfg qwen3.Config) error {
	j, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), j, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, safetensors.SingleFile))
	if err != nil {
		return err
	}
	defer f.Close()
	shapes := cfg.Shapes()
	err = safetensors.WriteStream(f, shapes, safetensors.BF16, map[string]string{"format": "pt"}, func(name string, off int, dst []float32) {
		if len(shapes[name]) == 1 {
			for i := range dst {
				dst[i] = 1
			}
			return
		}
		h := fnv.New64a()
		h.Write([]byte(name))
		r := rand.New(rand.NewPCG(h.Sum64(), uint64(off)))
		for i := range dst {
			dst[i] = float32(r.NormFloat64() * 0.02)
		}
	})
	if err != nil {
		return err
	}
	return f.Close()
}

// benchTok adapts the real tokenizer to Tokenizer.
type benchTok struct{ *tokenizer.Tokenizer }

func (t benchTok) EOS() int { return t.Specials().EOS }
func (t benchTok) Pad() int { return t.Specials().Pad }

// qmsumPairs builds n preference pairs of about seqLen tokens from the
// shipped QMSum test split: the chat-rendered prompt is a query and the
// start of its meeting's transcript, chosen is the query's reference
// answer and rejected another query's, the transcript cut so that the
// longer sequence is within seqLen. It returns the mean sequence length.
func qmsumPairs(b *testing.B, tok benchTok, n, seqLen int) ([]Pair, int) {
	f, err := os.Open("../../testdata/datasets/qmsum/test.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	type qa struct{ Query, Answer string }
	type meeting struct {
		Specific   []qa `json:"specific_query_list"`
		Transcript []struct {
			Speaker, Content string
		} `json:"meeting_transcripts"`
	}
	var ms []meeting
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m meeting
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			b.Fatal(err)
		}
		if len(m.Specific) >= 2 {
			ms = append(ms, m)
		}
	}
	var out []Pair
	total := 0
	for i := 0; len(out) < n; i++ {
		m := ms[i%len(ms)]
		q, other := m.Specific[i/len(ms)%len(m.Specific)], m.Specific[(i/len(ms)+1)%len(m.Specific)]
		var sb strings.Builder
		for _, u := range m.Transcript {
			sb.WriteString(u.Speaker + ": " + u.Content + "\n")
		}
		trans := tok.Encode(sb.String())
		answerLen := max(len(tok.Encode(q.Answer)), len(tok.Encode(other.Answer))) + 1
		keep := min(len(trans), seqLen-answerLen-48)
		for ; keep > 0; keep -= 16 {
			content := q.Query + "\n\n" + tok.Decode(trans[:keep])
			prompt, err := tokenizer.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: content}}, tokenizer.TemplateOptions{AddGenerationPrompt: true})
			if err != nil {
				b.Fatal(err)
			}
			c, _ := EncodeScored(tok, prompt, q.Answer, 0)
			r, _ := EncodeScored(tok, prompt, other.Answer, 0)
			if max(len(c), len(r)) <= seqLen {
				out = append(out, Pair{Prompt: prompt, Chosen: q.Answer, Rejected: other.Answer})
				total += len(c) + len(r)
				break
			}
		}
	}
	return out, total / (2 * len(out))
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// vmHWM is the process's peak resident set (bytes), from /proc/self/status.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
