package serve

import (
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// BenchmarkPrefillSharedPrefix prefills judge-like prompts on the demo's
// pretrained shape: a 1,500-token rubric shared by every prompt, then a
// 200-token judged item that differs each time; from scratch and through
// the prefix cache.
func BenchmarkPrefillSharedPrefix(b *testing.B) {
	cfg := qwen3.Tiny()
	cfg.VocabSize, cfg.HiddenSize, cfg.IntermediateSize, cfg.NumHiddenLayers = 282, 64, 128, 2
	cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim = 4, 2, 16
	m, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	const rubric, item = 1500, 200
	prompt := func(k int) []int {
		p := make([]int, rubric+item)
		for i := range p {
			p[i] = (i*31 + 7) % 256
			if i >= rubric {
				p[i] = (i*17 + k*101) % 256
			}
		}
		return p
	}
	b.Run("scratch", func(b *testing.B) {
		k := 0
		for b.Loop() {
			if _, err := m.Prefill(m.NewCache(), prompt(k)); err != nil {
				b.Fatal(err)
			}
			k++
		}
		b.ReportMetric(float64((rubric+item)*b.N)/b.Elapsed().Seconds(), "prompt_tok/s")
	})
	b.Run("prefix-cache", func(b *testing.B) {
		pc := newPrefixCache(DefaultPrefixCacheBytes)
		k := 0
		for b.Loop() {
			if _, _, err := pc.prefill(m, prompt(k)); err != nil {
				b.Fatal(err)
			}
			k++
		}
		b.ReportMetric(float64((rubric+item)*b.N)/b.Elapsed().Seconds(), "prompt_tok/s")
		b.ReportMetric(float64(pc.hit.Load())/float64(pc.queried.Load()), "hit_rate")
	})
}
