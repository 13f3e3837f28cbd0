package qwen3

import (
	"os"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"mascot.dev/mascot/internal/membw"
)

// Decode benchmarks. Each reports tok/s and bound_tok/s: the rate at which
// the machine could stream the float32 weights once per decode step
// (NumParams·4 bytes), from reading the model's weights with membw in the
// same process.
//
//	go test ./trainer/qwen3 -run '^$' -bench . -benchtime 20x
//
// The Qwen3-0.6B benchmarks build a random model with the real shapes
// (vocab 151936, 28 layers, 2.4 GB of float32); MASCOT_BENCH_LAYERS=n
// measures only n layers.

// bandwidth is the read bandwidth of m's weights (membw, every core) in
// bytes/s: a decoding step must read each weight once.
func bandwidth(m *Model) float64 {
	var bufs [][]float32
	for _, w := range m.Weights {
		bufs = append(bufs, w.Data)
	}
	return membw.Read(bufs, 3)
}

func BenchmarkMemoryCopy(b *testing.B) {
	const n = 256 << 20
	src, dst := make([]byte, n), make([]byte, n)
	b.SetBytes(2 * n)
	for b.Loop() {
		copy(dst, src)
	}
}

func benchDecode(b *testing.B, cfg Config, batch int) {
	if s := os.Getenv("MASCOT_BENCH_LAYERS"); s != "" && cfg.NumHiddenLayers > 4 {
		n, _ := strconv.Atoi(s)
		cfg.NumHiddenLayers = n
	}
	m, err := NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	caches := make([]*Cache, batch)
	toks := make([]int, batch)
	for i := range caches {
		caches[i] = m.NewCache()
		if _, err := m.Prefill(caches[i], []int{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
			b.Fatal(err)
		}
		toks[i] = 9 + i
	}
	bound := bandwidth(m) / float64(4*cfg.NumParams()) * float64(batch)
	b.ResetTimer()
	start := time.Now()
	steps := 0
	for b.Loop() {
		if caches[0].Len() >= 8+64 { // keep the context between 8 and 72 tokens
			for _, c := range caches {
				c.Truncate(8)
			}
		}
		if batch == 1 {
			_, err = m.Step(caches[0], toks[0])
		} else {
			_, err = m.StepBatch(caches, toks)
		}
		if err != nil {
			b.Fatal(err)
		}
		steps++
	}
	tps := float64(steps*batch) / time.Since(start).Seconds()
	b.ReportMetric(tps, "tok/s")
	b.ReportMetric(bound, "bound_tok/s")
	b.ReportMetric(tps/bound, "of_bound")
	b.ReportMetric(float64(cfg.NumHiddenLayers), "layers")
}

func BenchmarkDecodeTiny(b *testing.B)        { benchDecode(b, Tiny(), 1) }
func BenchmarkDecodeTinyBatch8(b *testing.B)  { benchDecode(b, Tiny(), 8) }
func BenchmarkDecode63M(b *testing.B)         { benchDecode(b, qwen3_63M(), 1) }
func BenchmarkDecode63MBatch8(b *testing.B)   { benchDecode(b, qwen3_63M(), 8) }
func BenchmarkDecode0_6B(b *testing.B)        { benchDecode(b, Qwen3_0_6B(), 1) }
func BenchmarkDecode0_6BBatch4(b *testing.B)  { benchDecode(b, Qwen3_0_6B(), 4) }
func BenchmarkDecode0_6BBatch8(b *testing.B)  { benchDecode(b, Qwen3_0_6B(), 8) }
func BenchmarkDecode0_6BBatch16(b *testing.B) { benchDecode(b, Qwen3_0_6B(), 16) }

// qwen3_63M is the engine suite's model (trainer/serve/enginesuite):
// Qwen3-0.6B's proportions at half the width, a 49,152-token vocabulary.
func qwen3_63M() Config {
	c := Tiny()
	c.VocabSize, c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers = 49152, 512, 1536, 12
	c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim = 8, 4, 64
	return c
}

// BenchmarkMatmulSkinny compares matmulT with gonum's Sgemm on a Qwen3-0.6B
// gate_proj [3072,1024] for 1, 4, 8 and 64 input rows.
func BenchmarkMatmulSkinny(b *testing.B) {
	const out, in = 3072, 1024
	w := make([]float32, out*in)
	for i := range w {
		w[i] = float32(i%7) * 0.01
	}
	for _, rows := range []int{1, 4, 8, 64} {
		x, y := make([]float32, rows*in), make([]float32, rows*out)
		flops := float64(2 * rows * out * in)
		b.Run("matmulT/"+strconv.Itoa(rows), func(b *testing.B) {
			for b.Loop() {
				matmulT(x, rows, in, w, out, y, false)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run("sgemm/"+strconv.Itoa(rows), func(b *testing.B) {
			for b.Loop() {
				blas32.Gemm(blas.NoTrans, blas.Trans, 1,
					blas32.General{Rows: rows, Cols: in, Stride: in, Data: x},
					blas32.General{Rows: out, Cols: in, Stride: in, Data: w},
					0, blas32.General{Rows: rows, Cols: out, Stride: out, Data: y})
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMatmulStream8 measures matmulT for eight rows (a decoding step
// of eight sequences) on the shapes of the engine suite's model and of
// Qwen3-0.6B's MLP, [out,in], with the weights coming from memory: each
// call takes the next of enough copies to fill 256 MiB (made when a shape
// first runs, so a -bench filter makes only its own). It reports the
// weight bytes read per second.
//
//	go test ./trainer/qwen3 -run '^$' -bench MatmulStream8
func BenchmarkMatmulStream8(b *testing.B) {
	for _, sh := range [][2]int{{1536, 512}, {512, 1536}, {49152, 512}, {3072, 1024}, {1024, 3072}} {
		out, in := sh[0], sh[1]
		copies := max(1, (256<<20)/(out*in*4))
		var w, x, y []float32
		b.Run(strconv.Itoa(out)+"x"+strconv.Itoa(in), func(b *testing.B) {
			if w == nil {
				w, x, y = make([]float32, copies*out*in), make([]float32, 8*in), make([]float32, 8*out)
				for i := range w {
					w[i] = float32(i%1013)/1013 - 0.5
				}
				for i := range x {
					x[i] = float32(i%997)/997 - 0.5
				}
			}
			n := 0
			for b.Loop() {
				matmulT(x, 8, in, w[(n%copies)*out*in:], out, y, false)
				n++
			}
			b.ReportMetric(float64(n)*float64(out*in*4)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkPrefillDemo2048 prefills a 2,048-token prompt (a long judge
// prompt) on the demo's pretrained shape: attention over the prompt
// dominates, as in the demo's judge stages.
func BenchmarkPrefillDemo2048(b *testing.B) {
	cfg := Tiny()
	cfg.VocabSize, cfg.HiddenSize, cfg.IntermediateSize, cfg.NumHiddenLayers = 282, 64, 128, 2
	cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim = 4, 2, 16
	m, err := NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int, 2048)
	for i := range ids {
		ids[i] = i % cfg.VocabSize
	}
	for b.Loop() {
		if _, err := m.Prefill(m.NewCache(), ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)*b.N)/b.Elapsed().Seconds(), "tok/s")
}
