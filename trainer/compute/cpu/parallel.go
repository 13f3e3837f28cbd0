package cpu

import "sync"

// parallelFor splits [0, n) into at most b.threads contiguous parts of at
// least grain items and runs fn(w, lo, hi) on part w concurrently (the
// first on the calling goroutine). The split depends only on n, grain and
// the thread count, never on scheduling, so work whose items are
// independent — or whose reductions stay inside one part, combined in
// part order — gives the same bits on every run.
func (b *Backend) parallelFor(n, grain int, fn func(w, lo, hi int)) {
	runParts(n, b.parts(n, grain), fn)
}

// runParts splits [0, n) into parts contiguous parts (span) and runs
// fn(w, lo, hi) on part w concurrently, the first on the calling
// goroutine.
func runParts(n, parts int, fn func(w, lo, hi int)) {
	if parts <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < parts; w++ {
		lo, hi := span(n, parts, w)
		wg.Go(func() { fn(w, lo, hi) })
	}
	lo, hi := span(n, parts, 0)
	fn(0, lo, hi)
	wg.Wait()
}

// parts is how many parts parallelFor splits n items into.
func (b *Backend) parts(n, grain int) int {
	if grain < 1 {
		grain = 1
	}
	p := min(b.threads, n/grain)
	return max(p, 1)
}

// span is part w of n items split into p near-equal contiguous parts.
func span(n, p, w int) (lo, hi int) {
	return n * w / p, n * (w + 1) / p
}
