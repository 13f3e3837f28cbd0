package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results"
)

// unitTally is what one unit's execution counted: its LLM requests per role
// and the stage's own counters. The runner commits it in the unit's
// transaction (done or failed), so a run's counters are exactly those of
// the units it recorded, even when the run is killed.
type unitTally struct {
	llm   *llm.Tally
	stage string      // the stage key, where the unit's attempts are counted
	cache *storeCache // nil without a response cache

	mu      sync.Mutex
	counts  map[string]int64
	written []results.Reply // the replies the unit's transaction wrote
}

type unitTallyKey struct{}

func withUnitTally(ctx context.Context, stage string, cache *storeCache) (context.Context, *unitTally) {
	t := &unitTally{llm: llm.NewTally(), stage: stage, cache: cache, counts: map[string]int64{}}
	ctx = llm.WithTally(ctx, t.llm)
	return context.WithValue(ctx, unitTallyKey{}, t), t
}

// CountIn adds n to a counter of the unit ctx executes, committed with the
// unit; outside a unit it adds to stage's counters like Count.
func (e *Env) CountIn(ctx context.Context, stage, name string, n int64) {
	t, ok := ctx.Value(unitTallyKey{}).(*unitTally)
	if !ok {
		e.Count(stage, name, n)
		return
	}
	t.mu.Lock()
	t.counts[name] += n // zeros too: the counter then exists
	t.mu.Unlock()
}

// LLM counter names, per role: llm.<role>.<name>. CounterNames lists them
// in the order the docs do.
const (
	cntRequests   = "requests"
	cntAttempts   = "attempts"
	cntFailures   = "failures"
	cntTokensIn   = "tokens_in"
	cntTokensOut  = "tokens_out"
	cntCacheHits  = "cache_hits"
	cntReused     = "reused"
	cntLost       = "lost_in_flight"
	cntRetries    = "retries_"
	cntFailuresBy = "failures_"
)

// RoleCounterNames returns the counter names recorded for every role (and
// judge) that made a request, without the "llm.<role>." prefix; the
// latency percentiles come from results (results.LatencyCounterNames).
func RoleCounterNames() []string {
	out := []string{cntRequests, cntAttempts}
	for _, c := range llm.Causes {
		out = append(out, cntRetries+c)
	}
	out = append(out, cntFailures)
	for _, c := range llm.Causes {
		out = append(out, cntFailuresBy+c)
	}
	out = append(out, cntTokensIn, cntTokensOut, cntCacheHits, cntReused, cntLost)
	return append(out, results.LatencyCounterNames...)
}

// roleKeys are one role's counter names ("llm.<role>.<name>"), built
// once per role and kept rather than at each unit's commit.
type roleKeys struct {
	requests, attempts, failures, tokensIn, tokensOut, cacheHits, reused, lost string
	retries, failuresBy                                                        []string // by llm.Causes
}

var roleKeyCache sync.Map // role -> *roleKeys

func keysOf(role string) *roleKeys {
	if k, ok := roleKeyCache.Load(role); ok {
		return k.(*roleKeys)
	}
	p := "llm." + role + "."
	k := &roleKeys{requests: p + cntRequests, attempts: p + cntAttempts, failures: p + cntFailures,
		tokensIn: p + cntTokensIn, tokensOut: p + cntTokensOut, cacheHits: p + cntCacheHits, reused: p + cntReused,
		lost: p + cntLost}
	for _, c := range llm.Causes {
		k.retries = append(k.retries, p+cntRetries+c)
		k.failuresBy = append(k.failuresBy, p+cntFailuresBy+c)
	}
	v, _ := roleKeyCache.LoadOrStore(role, k)
	return v.(*roleKeys)
}

// roleCounters flattens per-role LLM counts into out (every name present,
// zeros included, for each role) and returns the latency histogram rows.
func roleCounters(out map[string]int64, roles map[string]llm.RoleTally) []results.LatencyBucket {
	var hist []results.LatencyBucket
	names := make([]string, 0, len(roles))
	for r := range roles {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, role := range names {
		rt := roles[role]
		k := keysOf(role)
		out[k.requests] += rt.Requests
		out[k.attempts] += rt.Attempts
		var failed int64
		for i, c := range llm.Causes {
			out[k.retries[i]] += rt.Retries[c]
			out[k.failuresBy[i]] += rt.Failures[c]
			failed += rt.Failures[c]
		}
		out[k.failures] += failed
		out[k.tokensIn] += rt.TokensIn
		out[k.tokensOut] += rt.TokensOut
		out[k.cacheHits] += rt.CacheHits
		out[k.reused] += rt.Reused
		out[k.lost] += 0 // settled later (SettleLost); present so every role has every counter
		for b, n := range rt.Latency {
			hist = append(hist, results.LatencyBucket{Role: role, LE: llm.BucketLatency(b), Count: n})
		}
	}
	return hist
}

// counterMaps hold a unit's counters while it commits: AddCounters keeps
// nothing of the map it reads, and each unit made one of a few dozen
// entries (the runner's largest allocation per unit).
var counterMaps = sync.Pool{New: func() any { return map[string]int64{} }}

// commitCounters writes the unit's counters and latency histogram in tx.
func (t *unitTally) commit(tx *results.Tx, stage string) error {
	c := counterMaps.Get().(map[string]int64)
	hist := roleCounters(c, t.llm.Roles())
	t.mu.Lock()
	for k, v := range t.counts {
		c[k] += v
	}
	t.mu.Unlock()
	err := tx.AddCounters(stage, c)
	if len(c) <= 256 { // a rare large one is left to the collector (iterating a map costs its capacity)
		clear(c)
		counterMaps.Put(c)
	}
	if err != nil {
		return err
	}
	if err := tx.AddLatency(stage, hist); err != nil {
		return err
	}
	// The replies whose usage these counters hold are counted from now
	// on, in the same transaction: a rerun reads them as cache hits.
	if t.cache != nil {
		keys := t.llm.CountedKeys()
		written := t.cache.countedReplies(keys)
		if err := tx.CountReplies(written, keys); err != nil {
			return err
		}
		t.mu.Lock()
		t.written = written
		t.mu.Unlock()
	}
	return nil
}

// committed tells the cache, once the unit's transaction committed, that
// the replies it counted are counted.
func (t *unitTally) committed() {
	if t.cache != nil {
		t.mu.Lock()
		written := t.written
		t.mu.Unlock()
		t.cache.markCounted(t.llm.CountedKeys(), written)
	}
}

// commitWith wraps a unit's commit: it writes the unit's rows, then its
// counters. A unit that wrote no row while some of its LLM requests failed
// for good produced nothing because of them: it fails (nothing is
// committed, the rerun retries it) instead of being cached empty.
func (t *unitTally) commitWith(stage string, commit Commit) func(tx *results.Tx) error {
	return func(tx *results.Tx) error {
		if commit != nil {
			if err := commit(tx); err != nil {
				return err
			}
		}
		if tx.Rows() == 0 {
			if n, first := t.llm.First(); n > 0 {
				return fmt.Errorf("%w: %d LLM request(s) failed for good; first: %v", ErrNothingProduced, n, first)
			}
		}
		if err := tx.ReleaseClaim(); err != nil {
			return err
		}
		return t.commit(tx, stage)
	}
}

// ErrNothingProduced is returned (wrapped) for a unit that produced no
// result because its LLM requests failed.
var ErrNothingProduced = errors.New("unit produced nothing")

// fillRoleCounters returns m with every role counter present (0 when
// unset) for each LLM role m mentions.
func fillRoleCounters(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	roles := map[string]bool{}
	for k, v := range m {
		out[k] = v
		if rest, ok := strings.CutPrefix(k, "llm."); ok {
			if i := strings.LastIndexByte(rest, '.'); i > 0 {
				roles[rest[:i]] = true
			}
		}
	}
	for role := range roles {
		for _, n := range RoleCounterNames() {
			if _, ok := out["llm."+role+"."+n]; !ok {
				out["llm."+role+"."+n] = 0
			}
		}
	}
	return out
}

// withFirstFailure adds to a failed unit's error the first of its LLM
// requests that failed for good, unless the error says it already: a unit
// whose requests all failed ("no candidate survived") must show why, with
// or without --strict.
func (t *unitTally) withFirstFailure(err error) error {
	if err == nil || t == nil || t.llm == nil {
		return err
	}
	n, first := t.llm.First()
	if n == 0 || first == nil || strings.Contains(err.Error(), first.Error()) {
		return err
	}
	return fmt.Errorf("%w (%d LLM request(s) failed for good; first: %v)", err, n, first)
}
