package datasets

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkLoadQMSumJSONL parses the real QMSum test split (35 meetings,
// 2.7 MB) into 281 samples.
func BenchmarkLoadQMSumJSONL(b *testing.B) {
	spec := Spec{Name: QMSum, Path: filepath.Join(sharedDatasets(b), "qmsum", "test.jsonl")}
	for b.Loop() {
		if s, err := Load(spec); err != nil || len(s) != 281 {
			b.Fatalf("%d samples, %v", len(s), err)
		}
	}
}

// BenchmarkLoadESConv parses FailedESConv.json (196 dialogues, 0.9 MB).
func BenchmarkLoadESConv(b *testing.B) {
	spec := Spec{Name: ESConv, Path: filepath.Join(sharedDatasets(b), "esconv", "FailedESConv.json")}
	for b.Loop() {
		if s, err := Load(spec); err != nil || len(s) != 196 {
			b.Fatalf("%d samples, %v", len(s), err)
		}
	}
}

// BenchmarkSelect ranks 10,000 samples and keeps 500.
func BenchmarkSelect(b *testing.B) {
	in := make([]Sample, 10000)
	for i := range in {
		in[i] = Sample{ID: fmt.Sprintf("s%05d", i)}
	}
	for b.Loop() {
		if got := Select(in, Filters{}, 500, 1); len(got) != 500 {
			b.Fatal(len(got))
		}
	}
}
