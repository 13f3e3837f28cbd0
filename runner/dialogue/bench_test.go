package dialogue

import (
	"context"
	"testing"
)

// BenchmarkRunEpisode measures the engine's own cost (prompts, parsing,
// bookkeeping) per 5-round MASCOT episode with user simulation, with a
// scripted Chatter that answers instantly.
func BenchmarkRunEpisode(b *testing.B) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMASCOT)
	cfg.Turns = 5
	for b.Loop() {
		f.calls = f.calls[:0]
		if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMultiAgentESCEpisode is the same for the heaviest baseline.
func BenchmarkMultiAgentESCEpisode(b *testing.B) {
	f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
	cfg := esConfig(SystemMultiAgentESC)
	cfg.Turns = 5
	for b.Loop() {
		f.calls = f.calls[:0]
		if _, err := RunEpisode(context.Background(), f, cfg, esSample()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDirectiveText measures the tolerant text path.
func BenchmarkParseDirectiveText(b *testing.B) {
	r := EmotionalSupportRoster()
	raw := "Sure.\n\n**Agent:** The Catalyst\n**Action:** Ask a Socratic question about the exam\n**Tone:** curious and gentle"
	for b.Loop() {
		if _, err := ParseDirective(raw, r); err != nil {
			b.Fatal(err)
		}
	}
}
