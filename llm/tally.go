package llm

import (
	"context"
	"math"
	"sync"
	"time"
)

// Tally counts the requests made under one context (a unit of work), per
// role, so the runner can commit a unit's counters with the unit. Attach
// one with WithTally; Chat adds to the tally it finds in its context.
type Tally struct {
	mu      sync.Mutex
	roles   map[string]*RoleTally
	lastErr error
	// keys are the cache keys of the replies whose usage this tally
	// counted (fresh ones and reused ones), so whoever commits it can mark
	// them counted in the same transaction.
	keys []string
}

// RoleTally is what one role's requests cost. Retries and Failures are
// keyed by Cause.
type RoleTally struct {
	Requests  int64 // Chat calls, cache hits included
	Attempts  int64 // HTTP attempts sent (not those a Journal recorded)
	Retries   map[string]int64
	Failures  map[string]int64 // requests that failed for good, by the cause of the last attempt
	TokensIn  int64
	TokensOut int64
	CacheHits int64
	// Reused counts replies read from the cache that work lost to an
	// interruption had fetched: their usage is counted here.
	Reused int64
	// Latency is a histogram of successful, uncached requests' latency
	// (retries included): bucket index (see LatencyBucket) -> count.
	Latency map[int]int64
}

// Causes of a failed attempt, as counters name them.
const (
	Cause429       = "429"
	Cause5xx       = "5xx"
	CauseTimeout   = "timeout"
	CauseMalformed = "malformed"
	CauseOther     = "other"
)

// Causes lists every cause, in counter order.
var Causes = []string{Cause429, Cause5xx, CauseTimeout, CauseMalformed, CauseOther}

// CauseOf maps a failure Kind to its counter cause.
func CauseOf(k Kind) string {
	switch k {
	case KindRateLimited:
		return Cause429
	case KindServer:
		return Cause5xx
	case KindTimeout:
		return CauseTimeout
	case KindMalformed:
		return CauseMalformed
	}
	return CauseOther
}

type tallyKey struct{}

// NewTally returns an empty Tally.
func NewTally() *Tally { return &Tally{roles: map[string]*RoleTally{}} }

// WithTally returns ctx carrying t.
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// TallyFrom returns the Tally ctx carries, or nil.
func TallyFrom(ctx context.Context) *Tally {
	t, _ := ctx.Value(tallyKey{}).(*Tally)
	return t
}

// add runs f on role's entry; a nil Tally ignores it.
func (t *Tally) add(role string, f func(r *RoleTally)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.roles[role]
	if r == nil {
		r = &RoleTally{Retries: map[string]int64{}, Failures: map[string]int64{}, Latency: map[int]int64{}}
		t.roles[role] = r
	}
	f(r)
}

// counted records that this tally counted the usage of the reply under
// key; a nil Tally or an empty key ignores it.
func (t *Tally) counted(key string) {
	if t == nil || key == "" {
		return
	}
	t.mu.Lock()
	t.keys = append(t.keys, key)
	t.mu.Unlock()
}

// CountedKeys returns the cache keys of the replies whose usage the tally
// counted.
func (t *Tally) CountedKeys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.keys...)
}

func (t *Tally) fail(role string, err *Error) {
	if t == nil {
		return
	}
	t.add(role, func(r *RoleTally) { r.Failures[CauseOf(err.Kind)]++ })
	t.mu.Lock()
	t.lastErr = err
	t.mu.Unlock()
}

// Roles returns a copy of the per-role counts.
func (t *Tally) Roles() map[string]RoleTally {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]RoleTally, len(t.roles))
	for k, r := range t.roles {
		c := *r
		c.Retries, c.Failures, c.Latency = copyMap(r.Retries), copyMap(r.Failures), copyMap(r.Latency)
		out[k] = c
	}
	return out
}

// Failed returns how many requests failed for good, and the last failure.
func (t *Tally) Failed() (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	for _, r := range t.roles {
		for _, v := range r.Failures {
			n += v
		}
	}
	return n, t.lastErr
}

// Merge adds o's counts into t.
func (t *Tally) Merge(o map[string]RoleTally) {
	for role, x := range o {
		t.add(role, func(r *RoleTally) {
			r.Requests += x.Requests
			r.Attempts += x.Attempts
			r.TokensIn += x.TokensIn
			r.TokensOut += x.TokensOut
			r.CacheHits += x.CacheHits
			r.Reused += x.Reused
			addMap(r.Retries, x.Retries)
			addMap(r.Failures, x.Failures)
			addMap(r.Latency, x.Latency)
		})
	}
}

// LatencyBucket is the histogram bucket of d: log buckets growing by 5 %
// from 10µs (the same buckets as Stats' percentiles).
func LatencyBucket(d time.Duration) int {
	i := 0
	if d > histMin {
		i = int(math.Log(float64(d)/float64(histMin))/math.Log(histGrowth)) + 1
	}
	return min(i, histN-1)
}

// BucketLatency is the upper bound of bucket i.
func BucketLatency(i int) time.Duration {
	if i <= 0 {
		return histMin
	}
	return time.Duration(float64(histMin) * math.Pow(histGrowth, float64(i)))
}

// Quantile returns the q-quantile (0..1) of a latency histogram, 0 when
// it is empty.
func Quantile(h map[int]int64, q float64) time.Duration {
	var n int64
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return 0
	}
	target := int64(math.Ceil(q * float64(n)))
	var acc int64
	for i := 0; i < histN; i++ {
		acc += h[i]
		if acc >= target {
			return BucketLatency(i)
		}
	}
	return 0
}

func copyMap[K comparable](m map[K]int64) map[K]int64 {
	out := make(map[K]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func addMap[K comparable](dst, src map[K]int64) {
	for k, v := range src {
		dst[k] += v
	}
}
