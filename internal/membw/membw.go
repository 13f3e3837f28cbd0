package membw

import (
	"runtime"
	"sync"
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
		readOnce(bufs, total)
		best = max(best, float64(4*total)/time.Since(t).Seconds())
	}
	return best
}

// Sink keeps the sums alive.
var Sink float32

// readOnce reads every float of bufs once and returns their sum: the
// concatenation is cut into GOMAXPROCS equal parts, one goroutine each.
func readOnce(bufs [][]float32, total int) float32 {
	p := runtime.GOMAXPROCS(0)
	part := (total + p - 1) / p
	sums := make([]float32, p)
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := w*part, min((w+1)*part, total)
		wg.Go(func() {
			var s float32
			off := 0
			for _, b := range bufs {
				a, z := max(lo-off, 0), min(hi-off, len(b))
				if a < z {
					s += sum(b[a:z])
				}
				off += len(b)
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
