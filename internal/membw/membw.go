package membw

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Read returns the best read bandwidth, in bytes per second, of passes
// passes over bufs (every buffer read once per pass, split over
// GOMAXPROCS goroutines).
func Read(bufs [][]float32, passes int) float64 {
	var total int
	for _, b := range bufs {
		total += len(b)
	}
	best := 0.0
	for range max(1, passes) {
		t := time.Now()
		readOnce(bufs)
		best = max(best, float64(4*total)/time.Since(t).Seconds())
	}
	return best
}

// Sink keeps the sums alive.
var Sink float32

// piece is how many floats one goroutine reads at a time (1 MiB).
const piece = 1 << 18

// readOnce reads every float of bufs once and returns their sum. The
// buffers are cut into pieces of 1 MiB that GOMAXPROCS goroutines take from
// a shared counter, as the decoder shares out its matrix products, so a
// goroutine whose CPU is taken by another process holds the others up by
// one piece at most, not by half the read.
func readOnce(bufs [][]float32) float32 {
	type span struct {
		b      []float32
		lo, hi int
	}
	var spans []span
	for _, b := range bufs {
		for lo := 0; lo < len(b); lo += piece {
			spans = append(spans, span{b, lo, min(lo+piece, len(b))})
		}
	}
	p := runtime.GOMAXPROCS(0)
	sums := make([]float32, p)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range p {
		wg.Go(func() {
			var s float32
			for i := int(next.Add(1)) - 1; i < len(spans); i = int(next.Add(1)) - 1 {
				sp := spans[i]
				s += sum(sp.b[sp.lo:sp.hi])
			}
			sums[w] = s
		})
	}
	wg.Wait()
	var s float32
	for _, v := range sums {
		s += v
	}
	Sink = s
	return s
}

// sumGo is the reader where the assembly does not run.
func sumGo(b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(b) &^ 3
	for i := 0; i < n; i += 4 {
		s0 += b[i]
		s1 += b[i+1]
		s2 += b[i+2]
		s3 += b[i+3]
	}
	for _, v := range b[n:] {
		s0 += v
	}
	return s0 + s1 + s2 + s3
}
