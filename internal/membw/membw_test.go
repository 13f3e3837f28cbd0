package membw

import (
	"testing"
)

func TestSumReadsEveryFloat(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 64, 1000, 4095, 4096, 4096 + 7, 3*4096 + 100, 1<<18 + 5} {
		b := make([]float32, n)
		for i := range b {
			b[i] = 1
		}
		if got := sum(b); got != float32(n) {
			t.Errorf("sum of %d ones is %v", n, got)
		}
	}
}

// Every float of every buffer is read exactly once, however the parts of
// the goroutines cut across the buffers.
func TestReadCoversSplitBuffers(t *testing.T) {
	bufs := [][]float32{make([]float32, 1000), make([]float32, 7), make([]float32, 3333), nil, make([]float32, 64)}
	total := 0
	for _, b := range bufs {
		for i := range b {
			b[i] = 1
		}
		total += len(b)
	}
	if got := readOnce(bufs); got != float32(total) {
		t.Fatalf("read sums to %v, want %d", got, total)
	}
	if bw := Read(bufs, 2); bw <= 0 {
		t.Fatalf("bandwidth %v", bw)
	}
}

func BenchmarkRead(b *testing.B) {
	buf := make([]float32, 64<<20)
	b.SetBytes(int64(4 * len(buf)))
	for b.Loop() {
		readOnce([][]float32{buf})
	}
}
