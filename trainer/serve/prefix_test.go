package serve

import (
	"math"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
)

// sharedPrompts returns prompts that share a long prefix (longer together
// than the decoder's largest unblocked batch) and then differ, one that
// extends another, and one equal to another.
func sharedPrompts(prefix, vocab int) [][]int {
	base := make([]int, prefix)
	for i := range base {
		base[i] = (i*37 + 11) % vocab
	}
	with := func(suffix ...int) []int { return append(append([]int{}, base...), suffix...) }
	long := make([]int, 60)
	for i := range long {
		long[i] = (i*13 + 5) % vocab
	}
	return [][]int{with(long...), with(1, 2), with(3, 4, 5), with(append(long, 9, 9, 9)...), with(1, 2), with(long[:30]...)}
}

// greedy prefills prompt into c (via prefill) and decodes steps tokens
// greedily, returning every logits vector.
func greedy(t *testing.T, m *qwen3.Model, prefill func() (*qwen3.Cache, []float32, error), steps int) [][]float32 {
	t.Helper()
	c, lg, err := prefill()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float32{lg}
	for range steps {
		best := 0
		for i, v := range lg {
			if v > lg[best] {
				best = i
			}
		}
		if lg, err = m.Step(c, best); err != nil {
			t.Fatal(err)
		}
		out = append(out, lg)
	}
	return out
}

func sameBits(t *testing.T, what string, got, want [][]float32) {
	t.Helper()
	for s := range want {
		for i := range want[s] {
			if math.Float32bits(got[s][i]) != math.Float32bits(want[s][i]) {
				t.Fatalf("%s: step %d logit %d is %v with the prefix cache, %v from scratch", what, s, i, got[s][i], want[s][i])
			}
		}
	}
}

func TestPrefixCacheLogitsEqualScratch(t *testing.T) {
	m, err := qwen3.NewRandom(qwen3.Tiny(), 7)
	if err != nil {
		t.Fatal(err)
	}
	a, err := loadAdapter(m, "a", adapterDir(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	pc := newPrefixCache(DefaultPrefixCacheBytes)
	for _, view := range []*qwen3.Model{m, a.view} {
		hitBefore := pc.hit.Load()
		for i, p := range sharedPrompts(150, 256) {
			want := greedy(t, view, func() (*qwen3.Cache, []float32, error) {
				c := view.NewCache()
				lg, err := view.Prefill(c, p)
				return c, lg, err
			}, 4)
			hit := pc.hit.Load()
			got := greedy(t, view, func() (*qwen3.Cache, []float32, error) { return pc.prefill(view, p) }, 4)
			if i == 0 && pc.hit.Load() != hit {
				t.Fatalf("the first prompt on a view reused %d tokens of another view", pc.hit.Load()-hit)
			}
			sameBits(t, "prompt "+string(rune('0'+i)), got, want)
		}
		if pc.hit.Load()-hitBefore < 150*4 {
			t.Errorf("reused %d prompt tokens, want at least the shared prefix of every later prompt", pc.hit.Load()-hitBefore)
		}
	}
}

func TestPrefixCacheEvictsLeastRecentlyUsed(t *testing.T) {
	m, err := qwen3.NewRandom(qwen3.Tiny(), 7)
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(first int) []int { return []int{first, 1, 2, 3, 4, 5, 6, 7, 8, 9} }
	size := int64(len(prompt(0))) * m.Config.KVBytesPerToken()
	pc := newPrefixCache(3 * size)
	use := func(first int) int64 {
		t.Helper()
		hit := pc.hit.Load()
		if _, _, err := pc.prefill(m, prompt(first)); err != nil {
			t.Fatal(err)
		}
		if n, bytes := pc.usage(); bytes > pc.budget || n > 3 {
			t.Fatalf("the cache holds %d prompts, %d bytes, over its budget %d", n, bytes, pc.budget)
		}
		return pc.hit.Load() - hit
	}
	for _, f := range []int{10, 11, 12} {
		if h := use(f); h != 0 {
			t.Fatalf("prompt %d reused %d tokens of unrelated prompts", f, h)
		}
	}
	all := int64(len(prompt(0)) - minSuffix)
	if h := use(10); h != all {
		t.Fatalf("a kept prompt reused %d tokens, want %d (all but minSuffix)", h, all)
	}
	use(13) // evicts 11, the least recently used
	if h := use(12); h != all {
		t.Errorf("prompt 12 reused %d tokens after the eviction, want %d (it was used after 11)", h, all)
	}
	if h := use(11); h != 0 {
		t.Errorf("prompt 11 reused %d tokens, want 0: it was the least recently used", h)
	}
	big := make([]int, 40)
	if _, _, err := pc.prefill(m, big); err != nil {
		t.Fatal(err)
	}
	if _, bytes := pc.usage(); bytes > pc.budget {
		t.Errorf("a prompt over the budget was kept: %d bytes, budget %d", bytes, pc.budget)
	}
	pc.drop(func(v *qwen3.Model) bool { return v == m })
	if n, bytes := pc.usage(); n != 0 || bytes != 0 {
		t.Errorf("after dropping the model the cache holds %d prompts, %d bytes", n, bytes)
	}
}

func TestPrefixCacheServerMetricsAndReload(t *testing.T) {
	s, url := startServer(t, Options{})
	system := strings.Repeat("You are a careful judge of companion dialogues. ", 4)
	for _, q := range []string{"Rate reply one.", "Rate reply two."} {
		chat(t, url, map[string]any{"model": "tiny", "max_tokens": 2, "temperature": 0,
			"messages": []map[string]any{{"role": "system", "content": system}, {"role": "user", "content": q}}})
	}
	_, metrics := get(t, strings.TrimSuffix(url, "/v1")+"/metrics")
	if strings.Contains(string(metrics), `vllm:prefix_cache_hits_total{model_name="tiny"} 0`) ||
		!strings.Contains(string(metrics), "vllm:prefix_cache_queries_total") {
		t.Errorf("the second request with the same system prompt shows no prefix cache hit:\n%s", metrics)
	}
	if n, _ := s.eng.prefixes.usage(); n == 0 {
		t.Fatal("no prompt kept after two requests")
	}
	if err := s.LoadModel(tinyModelDir(t)); err != nil {
		t.Fatal(err)
	}
	if n, bytes := s.eng.prefixes.usage(); n != 0 || bytes != 0 {
		t.Errorf("after reloading the model the prefix cache holds %d prompts, %d bytes", n, bytes)
	}
}
