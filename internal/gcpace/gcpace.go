package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how far past the live heap the heap may grow, at least,
// before the next collection while Raise is in effect.
const Headroom = 64 << 20

// maxPercent bounds the percent for a nearly empty heap.
const maxPercent = 2000

var (
	mu      sync.Mutex
	depth   int
	active  bool // this package set the percent and keeps it up
	prevPct int
	floor   int    // the highest minimum percent any call of this session asked for (kept until the session ends)
	gen     uint64 // which Raise session a collection hook belongs to
)

// Raise keeps the collector's target at the live heap plus at least
// Headroom, and at least minPercent percent above it, until the returned
// function is called (unless GOGC is set or the percent was set off or
// higher). Calls nest; the percent goes back when the outermost ends.
func Raise(minPercent int) (restore func()) {
	mu.Lock()
	defer mu.Unlock()
	if depth == 0 && os.Getenv("GOGC") == "" {
		cur := debug.SetGCPercent(100)
		debug.SetGCPercent(cur)
		if cur >= 0 && cur <= 100 {
			active, prevPct, floor = true, cur, minPercent
			gen++
			adjust()
			arm(gen)
		}
	} else if active && minPercent > floor {
		floor = minPercent
		adjust()
	}
	depth++
	var once sync.Once
	return func() { once.Do(release) }
}

func release() {
	mu.Lock()
	defer mu.Unlock()
	depth--
	if depth == 0 && active {
		active = false
		gen++ // the pending hook ends its chain
		debug.SetGCPercent(prevPct)
	}
}

// percentFor is the percent Raise sets for a live heap of live bytes when
// asked for at least minPercent.
func percentFor(live uint64, minPercent int) int {
	if live == 0 {
		return maxPercent
	}
	return min(maxPercent, max(minPercent, 100, int(Headroom*100/live)))
}

// adjust sets the percent from the live heap the last collection left.
func adjust() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	var live uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	debug.SetGCPercent(percentFor(live, floor))
}

// sentinel is garbage from birth: its finalizer runs after the collection
// that finds it, which is how Raise learns that a collection happened.
// (Large enough to stay out of the tiny allocator, whose blocks are freed
// together.)
type sentinel struct{ _ [32]byte }

func arm(g uint64) {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) { collected(g) })
}

// collected runs after each collection while session g lasts.
func collected(g uint64) {
	mu.Lock()
	defer mu.Unlock()
	if !active || g != gen {
		return
	}
	adjust()
	arm(g)
}
