package llm

import (
	"math"
	"sync"
	"time"
)

// Stats is a snapshot of a Client's counters since it was created.
type Stats struct {
	Requests  int64 // Chat calls, cache hits included
	Succeeded int64
	Failed    int64
	Attempts  int64 // HTTP attempts sent
	Retries   int64 // attempts after the first
	// AttemptFailures counts every failed attempt by kind (retried or not).
	AttemptFailures map[Kind]int64
	// RetriesByKind counts the failed attempts that were retried, by kind.
	RetriesByKind map[Kind]int64
	// Failures counts requests that failed for good, by the kind of their
	// last attempt (the faults that exhausted their retries).
	Failures       map[Kind]int64
	CacheHits      int64
	Reused         int64 // replies read from the cache that lost work had fetched (usage counted now)
	CacheMisses    int64
	CacheErrors    int64
	EmptyResponses int64 // successful responses with an empty choice
	TokensIn       int64
	TokensOut      int64
	LatencyP50     time.Duration // of successful, uncached requests
	LatencyP95     time.Duration
	Replicas       []ReplicaStats
}

// ReplicaStats are the routing counters of one replica.
type ReplicaStats struct {
	Endpoint     string
	URL          string
	Attempts     int64
	Failures     int64
	Outstanding  int
	CoolingUntil time.Time
}

// latency histogram: log buckets growing by 5 % from 10µs; enough for
// percentiles within 5 % without keeping every sample.
const (
	histMin    = 10 * time.Microsecond
	histGrowth = 1.05
	histN      = 400 // up to ~ 10µs·1.05^400 ≈ 8 hours
)

type stats struct {
	mu sync.Mutex
	s  Stats
	h  [histN]int64
	hn int64
}

func newStats() *stats {
	return &stats{s: Stats{
		AttemptFailures: map[Kind]int64{}, RetriesByKind: map[Kind]int64{}, Failures: map[Kind]int64{},
	}}
}

func (st *stats) add(f func(s *Stats)) {
	st.mu.Lock()
	f(&st.s)
	st.mu.Unlock()
}

// succeeded counts a successful request that missed the cache, under one
// lock (the requests in flight take it in turn).
func (st *stats) succeeded(tokensIn, tokensOut int, empty bool, latency time.Duration) {
	i := LatencyBucket(latency)
	st.mu.Lock()
	st.s.Succeeded++
	st.s.TokensIn += int64(tokensIn)
	st.s.TokensOut += int64(tokensOut)
	if empty {
		st.s.EmptyResponses++
	}
	st.h[i]++
	st.hn++
	st.mu.Unlock()
}

func (st *stats) quantile(q float64) time.Duration {
	if st.hn == 0 {
		return 0
	}
	target := int64(math.Ceil(q * float64(st.hn)))
	var acc int64
	for i, c := range st.h {
		acc += c
		if acc >= target {
			return BucketLatency(i)
		}
	}
	return 0
}

func (st *stats) snapshot() Stats {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.s
	s.AttemptFailures = copyKinds(st.s.AttemptFailures)
	s.RetriesByKind = copyKinds(st.s.RetriesByKind)
	s.Failures = copyKinds(st.s.Failures)
	s.LatencyP50 = st.quantile(0.50)
	s.LatencyP95 = st.quantile(0.95)
	return s
}

func copyKinds(m map[Kind]int64) map[Kind]int64 {
	out := make(map[Kind]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
