package serve

import (
	"fmt"
	"os"
	"testing"
	"time"

	"mascot.dev/mascot/internal/membw"
	"mascot.dev/mascot/trainer/qwen3"
)

// Decode benchmarks: tokens per second of the KV-cache decoder the engine
// runs, single stream and batched, each next to the memory-bandwidth bound
// of reading the weights once per decoding step (float32 weights; the
// tied head reads the whole embedding matrix; the bandwidth is that of
// reading the model's own weights with membw). The Qwen3-0.6B-shaped
// model (2.4 GB of float32) runs only with MASCOT_BENCH_QWEN06B=1. The
// engine suite (engine_bench_linux_test.go) is the one whose figures the
// docs quote:
//
//	go test -run '^$' -bench 'Bandwidth|Decode' -benchtime 2s ./trainer/serve/
//	MASCOT_BENCH_QWEN06B=1 go test -run '^$' -bench Decode/qwen3 -benchtime 8x ./trainer/serve/

// BenchmarkReadBandwidth reads a 256 MiB buffer on every core: bytes read
// per second, the resource a decoding step spends on its weights.
func BenchmarkReadBandwidth(b *testing.B) {
	buf := make([]float32, 64<<20)
	b.SetBytes(int64(4 * len(buf)))
	for b.Loop() {
		membw.Read([][]float32{buf}, 1)
	}
}

// weightBufs lists m's weight tensors, each once (a tied head is the
// embedding matrix).
func weightBufs(m *qwen3.Model) [][]float32 {
	var bufs [][]float32
	for _, w := range m.Weights {
		bufs = append(bufs, w.Data)
	}
	return bufs
}

func BenchmarkDecode(b *testing.B) {
	demo := qwen3.Tiny()
	demo.HiddenSize, demo.IntermediateSize, demo.NumHiddenLayers, demo.HeadDim = 128, 384, 4, 32
	cases := []struct {
		name string
		cfg  qwen3.Config
		gate bool
	}{{"demo-h64-l2", qwen3.Tiny(), false}, {"demo-h128-l4", demo, false}, {"qwen3-0.6B", qwen3.Qwen3_0_6B(), true}}
	for _, c := range cases {
		if c.gate && os.Getenv("MASCOT_BENCH_QWEN06B") == "" {
			continue
		}
		var m *qwen3.Model
		for _, batch := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/batch%d", c.name, batch), func(b *testing.B) {
				if m == nil {
					var err error
					if m, err = qwen3.NewRandom(c.cfg, 1); err != nil {
						b.Fatal(err)
					}
				}
				decodeBench(b, m, batch)
			})
		}
	}
}

// decodeBench runs b.N decoding steps of batch sequences after a 32-token
// prompt; sequences restart every 128 tokens so the cache stays short.
func decodeBench(b *testing.B, m *qwen3.Model, batch int) {
	prompt := make([]int, 32)
	for i := range prompt {
		prompt[i] = (i*37 + 11) % 256
	}
	fresh := func() []*qwen3.Cache {
		cs := make([]*qwen3.Cache, batch)
		for i := range cs {
			cs[i] = m.NewCache()
			if _, err := m.Prefill(cs[i], prompt); err != nil {
				b.Fatal(err)
			}
		}
		return cs
	}
	caches := fresh()
	toks := make([]int, batch)
	steps := 0
	var elapsed time.Duration
	for b.Loop() {
		if steps == 128 {
			caches, steps = fresh(), 0
		}
		t := time.Now()
		if _, err := m.StepBatch(caches, toks); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(t)
		steps++
	}
	weights := 4 * float64(m.Config.NumParams())
	tps := float64(b.N*batch) / elapsed.Seconds()
	bound := float64(batch) * membw.Read(weightBufs(m), 3) / weights
	b.ReportMetric(tps, "tok/s")
	b.ReportMetric(bound, "bound-tok/s")
	b.ReportMetric(100*tps/bound, "%bound")
	b.ReportMetric(weights/1e6, "MB-weights")
}
