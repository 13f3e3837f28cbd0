package serve

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/trainer/qwen3"
)

// Decode benchmarks: tokens per second of the KV-cache decoder the engine
// runs, single stream and batched, each next to the memory-bandwidth bound
// of reading the weights once per decoding step (float32 weights; the
// tied head reads the whole embedding matrix). The Qwen3-0.6B-shaped model
// (2.4 GB of float32) runs only with MASCOT_BENCH_QWEN06B=1:
//
//	go test -run '^$' -bench 'Bandwidth|Decode' -benchtime 2s ./trainer/serve/
//	MASCOT_BENCH_QWEN06B=1 go test -run '^$' -bench Decode/qwen3 -benchtime 8x ./trainer/serve/

// BenchmarkBandwidth copies a 256 MiB buffer (one core): bytes read plus
// written per second.
func BenchmarkBandwidth(b *testing.B) {
	src := make([]float32, 64<<20)
	dst := make([]float32, len(src))
	for i := range src {
		src[i] = float32(i)
	}
	b.SetBytes(int64(2 * 4 * len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkReadBandwidth sums a 256 MiB buffer on every core: bytes read
// per second, the resource a decoding step spends on its weights.
func BenchmarkReadBandwidth(b *testing.B) {
	buf := make([]float32, 64<<20)
	b.SetBytes(int64(4 * len(buf)))
	for b.Loop() {
		readAll(buf)
	}
}

var sink float32

// readAll reads buf once, split over GOMAXPROCS goroutines.
func readAll(buf []float32) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	sums := make([]float32, p)
	chunk := (len(buf) + p - 1) / p
	for w := range p {
		part := buf[min(w*chunk, len(buf)):min((w+1)*chunk, len(buf))]
		wg.Go(func() {
			var a, b, c, d float32
			for i := 0; i+3 < len(part); i += 4 {
				a += part[i]
				b += part[i+1]
				c += part[i+2]
				d += part[i+3]
			}
			sums[w] = a + b + c + d
		})
	}
	wg.Wait()
	sink = sums[0]
}

var (
	bwOnce sync.Once
	bw     float64
)

// bandwidth is the best of a few parallel reads of 256 MiB, in bytes per
// second.
func bandwidth() float64 {
	bwOnce.Do(func() {
		buf := make([]float32, 64<<20)
		for i := range buf {
			buf[i] = 1
		}
		for range 5 {
			t := time.Now()
			readAll(buf)
			bw = max(bw, float64(4*len(buf))/time.Since(t).Seconds())
		}
	})
	return bw
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
	bound := float64(batch) * bandwidth() / weights
	b.ReportMetric(tps, "tok/s")
	b.ReportMetric(bound, "bound-tok/s")
	b.ReportMetric(100*tps/bound, "%bound")
	b.ReportMetric(weights/1e6, "MB-weights")
}
