package dialogue

import (
	"context"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/realdata"
	"mascot.dev/mascot/runner/datasets"
)

// loadESConv reads the real ESConv file shipped under testdata/datasets.
func loadESConv(t testing.TB) []datasets.Sample {
	t.Helper()
	samples, err := datasets.Load(datasets.Spec{Name: datasets.ESConv, Path: realdata.File(t, "esconv/FailedESConv.json")})
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

// TestRealESConv builds the retrieval pool from the real ESConv file and
// runs multiagent-esc and MASCOT on a real sample with its opening only.
func TestRealESConv(t *testing.T) {
	samples := loadESConv(t)
	ex := ExamplesFromSamples(samples)
	canonical := 0
	for _, e := range ex {
		if NormalizeStrategy(e.Strategy) != "" {
			canonical++
		}
	}
	// 2,378 supporter turns carry a strategy; all but a handful map onto the 8.
	if len(ex) < 2000 || float64(canonical) < 0.99*float64(len(ex)) {
		t.Fatalf("%d examples, %d with a canonical strategy", len(ex), canonical)
	}
	pool := NewExamplePool(ex)
	hits := pool.Search("I lost my job because of the pandemic and I am worried about money", 5)
	if len(hits) != 5 {
		t.Fatalf("hits %v", hits)
	}
	joined := ""
	for _, h := range hits {
		joined += strings.ToLower(pool.At(h).Context)
	}
	if !strings.Contains(joined, "job") {
		t.Fatalf("retrieval for a job loss found no job context:\n%s", joined)
	}

	s := samples[0]
	for _, system := range []string{SystemMultiAgentESC, SystemMASCOT} {
		f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
		cfg := esConfig(system)
		cfg.ContextTurns, cfg.Baseline.Examples = 1, pool
		ep, err := RunEpisode(context.Background(), f, cfg, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSchema(ep, true); err != nil {
			t.Fatal(err)
		}
		first := f.calls[0].Messages[len(f.calls[0].Messages)-1].Content
		if !strings.Contains(first, s.Context[0].Text) || strings.Contains(first, s.Context[1].Text) {
			t.Fatalf("%s: opening history is not just the first utterance:\n%s", system, first)
		}
		if ini := deref(ep.InitialEmotion); ini != strings.ToLower(s.Emotion) && ini != s.Emotion {
			t.Fatalf("initial emotion %q vs dataset %q", ini, s.Emotion)
		}
	}
}

func BenchmarkExamplePoolSearch(b *testing.B) {
	pool := NewExamplePool(ExamplesFromSamples(loadESConv(b)))
	b.ResetTimer()
	for b.Loop() {
		pool.Search("I lost my job because of the pandemic and I am worried about money", 3)
	}
}
