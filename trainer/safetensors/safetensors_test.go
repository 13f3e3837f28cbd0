package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sample() map[string]*Tensor {
	return map[string]*Tensor{
		"a.weight": {Shape: []int{2, 3}, Data: []float32{1, -2, 0.5, 3.25, 0, -0.125}},
		"b":        {Shape: []int{}, Data: []float32{7}},
		"empty":    {Shape: []int{0, 4}, Data: []float32{}},
	}
}

func roundTrip(t *testing.T, dt DType) map[string]*Tensor {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, sample(), dt, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if n := binary.LittleEndian.Uint64(b); n%8 != 0 {
		t.Fatalf("header length %d is not 8-aligned", n)
	}
	got, meta, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta["format"] != "pt" {
		t.Fatalf("metadata %v", meta)
	}
	return got
}

func TestRoundTripExactDTypes(t *testing.T) {
	// Every sample value is exactly representable in F16 and BF16.
	for _, dt := range []DType{F32, F16, BF16} {
		got := roundTrip(t, dt)
		for name, want := range sample() {
			g := got[name]
			if g == nil || len(g.Shape) != len(want.Shape) || len(g.Data) != len(want.Data) {
				t.Fatalf("%s %s: got %+v", dt, name, g)
			}
			for i := range want.Data {
				if g.Data[i] != want.Data[i] {
					t.Fatalf("%s %s[%d] = %v, want %v", dt, name, i, g.Data[i], want.Data[i])
				}
			}
		}
	}
}

func TestConversions(t *testing.T) {
	cases := []struct {
		f    float32
		bf16 uint16
		f16  uint16
	}{
		{1, 0x3f80, 0x3c00},
		{-2, 0xc000, 0xc000},
		{0.1, 0x3dcd, 0x2e66},                   // rounded to nearest
		{65504, 0x4780, 0x7bff},                 // f16 max; bf16 rounds up to 65536
		{1e6, 0x4974, 0x7c00},                   // f16 overflow → +Inf
		{5.960464477539063e-08, 0x3380, 0x0001}, // smallest f16 subnormal
	}
	for _, c := range cases {
		if got := Float32ToBF16(c.f); got != c.bf16 {
			t.Errorf("Float32ToBF16(%v) = %#04x, want %#04x", c.f, got, c.bf16)
		}
		if got := Float32ToF16(c.f); got != c.f16 {
			t.Errorf("Float32ToF16(%v) = %#04x, want %#04x", c.f, got, c.f16)
		}
	}
	// Round-to-nearest-even on a tie: 1 + 2^-8 lies halfway between two bf16 values.
	if got := Float32ToBF16(1 + 1.0/256); got != 0x3f80 {
		t.Errorf("bf16 tie rounds to %#04x, want even 0x3f80", got)
	}
	// Every f16 pattern survives f16 → f32 → f16.
	for u := 0; u < 1<<16; u++ {
		f := F16ToFloat32(uint16(u))
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := Float32ToF16(f); back != uint16(u) {
			t.Fatalf("f16 %#04x → %v → %#04x", u, f, back)
		}
	}
	if !math.IsNaN(float64(BF16ToFloat32(Float32ToBF16(float32(math.NaN()))))) {
		t.Error("NaN lost in bf16")
	}
}

// file builds raw safetensors bytes from a header string and data length.
func file(header string, data int) []byte {
	b := make([]byte, 8, 8+len(header)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

func TestRejects(t *testing.T) {
	huge := make([]byte, 8)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	cases := map[string][]byte{
		"short":            {1, 2, 3},
		"absurd length":    huge,
		"truncated header": file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4)[:30],
		"not json":         file(`{"a":`, 0),
		"not object":       file(`[1,2]`, 0),
		"bad utf8":         file("{\"\xff\":{}}", 0),
		"duplicate key":    file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8),
		"unknown dtype":    file(`{"a":{"dtype":"F31","shape":[1],"data_offsets":[0,4]}}`, 4),
		"no dtype":         file(`{"a":{"shape":[1],"data_offsets":[0,4]}}`, 4),
		"negative dim":     file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4),
		"size mismatch":    file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 4),
		"end before begin": file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, 4),
		"out of range":     file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 2),
		"trailing bytes":   file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 8),
		"gap":              file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8),
		"overlap": file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},`+
			`"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8),
		"overflowing shape": file(`{"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}}`, 4),
		"huge shape":        file(`{"a":{"dtype":"F32","shape":[100000000000],"data_offsets":[0,400000000000]}}`, 4),
		"odd bits":          file(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}}`, 1),
		"metadata non-str":  file(`{"__metadata__":{"x":1}}`, 0),
		"junk after":        file(`{} x`, 0),
		"unconvertible":     file(`{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}}`, 4),
	}
	for name, b := range cases {
		_, _, err := parse(b)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if name != "unconvertible" && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", name, err)
		}
	}
	// The unconvertible dtype still has a valid header.
	if _, err := ReadHeader(bytes.NewReader(cases["unconvertible"]), int64(len(cases["unconvertible"]))); err != nil {
		t.Errorf("valid I32 header rejected: %v", err)
	}
}

func TestAcceptsReferenceQuirks(t *testing.T) {
	// Any key order, scalar shape, empty tensor, space padding, metadata.
	h := `{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[],"data_offsets":[4,6]},` +
		`"z":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}   `
	b := file(h, 6)
	copy(b[8+len(h):], []byte{0, 0, 0x80, 0x3f, 0x80, 0x3f})
	ts, _, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if ts["a"].Data[0] != 1 || ts["b"].Data[0] != 1 || len(ts["z"].Data) != 0 {
		t.Fatalf("got a=%v b=%v", ts["a"].Data, ts["b"].Data)
	}
}

func TestShardedDir(t *testing.T) {
	dir := t.TempDir()
	ts := map[string]*Tensor{}
	for _, n := range []string{"w0", "w1", "w2", "w3"} {
		ts[n] = &Tensor{Shape: []int{4}, Data: []float32{1, 2, 3, float32(len(n))}}
	}
	if err := WriteDir(dir, ts, BF16, 20); err != nil { // 8 bytes each → 2 per shard
		t.Fatal(err)
	}
	for _, f := range []string{IndexFile, "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got["w3"].Data[3] != 2 {
		t.Fatalf("got %v", got)
	}
	// An index naming a shard outside the directory is refused.
	bad := `{"weight_map":{"w0":"../x.safetensors"}}`
	os.WriteFile(filepath.Join(dir, IndexFile), []byte(bad), 0o644)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("path escape: %v", err)
	}
	// A tensor in the index but missing from its shard is refused.
	bad = `{"weight_map":{"w0":"model-00001-of-00002.safetensors","nope":"model-00001-of-00002.safetensors"}}`
	os.WriteFile(filepath.Join(dir, IndexFile), []byte(bad), 0o644)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing tensor: %v", err)
	}
	// Single-file directory.
	one := t.TempDir()
	if err := WriteDir(one, ts, F32, 0); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadDir(one); err != nil || len(got) != 4 {
		t.Fatalf("single file: %v %v", got, err)
	}
}

// TestReadDirTensorsShareNoBytes: ReadDir carves every tensor from one
// slab (internal/hugemem); each must come back with its own values, over
// shards and past the 2 MB at which the slab is aligned for huge pages,
// and with a capacity of its own length, so that an append to one can
// never write into the next.
func TestReadDirTensorsShareNoBytes(t *testing.T) {
	dir := t.TempDir()
	sizes := map[string]int{"a": 7, "b": 600_000, "c": 33, "d": 1}
	ts := map[string]*Tensor{}
	for name, n := range sizes {
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(i%1000) + float32(name[0])/1000
		}
		ts[name] = &Tensor{Shape: []int{n}, Data: d}
	}
	if err := WriteDir(dir, ts, F32, 1<<20); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range ts {
		g := got[name]
		if g == nil || !slices.Equal(g.Data, want.Data) {
			t.Fatalf("tensor %s read back wrong", name)
		}
		if cap(g.Data) != len(g.Data) {
			t.Fatalf("tensor %s: capacity %d beyond its %d values", name, cap(g.Data), len(g.Data))
		}
	}
}
