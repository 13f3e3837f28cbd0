package safetensors

import (
	"bytes"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader: it must return an error or
// tensors whose sizes match their shapes, never panic or over-allocate.
// Run: go test ./trainer/safetensors -run '^$' -fuzz FuzzRead -fuzztime 60s
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	Write(&buf, sample(), BF16, map[string]string{"format": "pt"})
	f.Add(buf.Bytes())
	buf.Reset()
	Write(&buf, sample(), F32, nil)
	f.Add(buf.Bytes())
	f.Add(file(`{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, 4))
	f.Add(file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, _, err := parse(b)
		if err != nil {
			return
		}
		total := 0
		for name, tt := range ts {
			n := 1
			for _, d := range tt.Shape {
				n *= d
			}
			if n != len(tt.Data) {
				t.Fatalf("%s: shape %v but %d values", name, tt.Shape, len(tt.Data))
			}
			total += n
		}
		if total > 4*len(b) {
			t.Fatalf("%d values from %d bytes", total, len(b))
		}
	})
}
