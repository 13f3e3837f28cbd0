package llm

import (
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// replica is one URL of an endpoint.
type replica struct {
	base     string // as configured, used for requests
	redacted string // for traces and errors
	oc       *openai.Client

	// guarded by pool.mu
	outstanding int
	coolUntil   time.Time
	streak      int // consecutive failures
	sent        int64
	failed      int64
}

// pool routes attempts over an endpoint's replicas: least outstanding
// requests among healthy replicas, with passive health (cool-down after a
// failure, growing with consecutive failures).
type pool struct {
	mu       sync.Mutex
	reps     []*replica
	next     int // rotates tie-breaks
	cooldown time.Duration
}

// pick chooses a replica and counts the attempt as outstanding. It prefers,
// in order: healthy and untried, healthy, untried, any; within a class the
// fewest outstanding requests win.
func (p *pool) pick(tried []*replica) *replica {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	n := len(p.reps)
	start := p.next
	p.next = (p.next + 1) % n
	var best *replica
	bestClass, bestOut := 5, 0
	for k := 0; k < n; k++ {
		r := p.reps[(start+k)%n]
		class := 0
		if now.Before(r.coolUntil) {
			class += 2
		}
		if contains(tried, r) {
			class++
		}
		if best == nil || class < bestClass || (class == bestClass && r.outstanding < bestOut) {
			best, bestClass, bestOut = r, class, r.outstanding
		}
	}
	best.outstanding++
	best.sent++
	return best
}

// hasFresh reports whether a healthy replica not in tried exists.
func (p *pool) hasFresh(tried []*replica) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for _, r := range p.reps {
		if !now.Before(r.coolUntil) && !contains(tried, r) {
			return true
		}
	}
	return false
}

// done ends an attempt on r. Connection failures, timeouts and 5xx cool the
// replica down; a 429 with Retry-After keeps it out for that long.
func (p *pool) done(r *replica, kind Kind, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r.outstanding--
	now := time.Now()
	switch kind {
	case "":
		r.streak = 0
	case KindConnection, KindTimeout, KindServer:
		r.failed++
		r.streak++
		d := p.cooldown
		for i := 1; i < r.streak && d < 16*p.cooldown; i++ {
			d *= 2
		}
		if u := now.Add(d); u.After(r.coolUntil) {
			r.coolUntil = u
		}
	case KindRateLimited:
		r.failed++
		if u := now.Add(retryAfter); retryAfter > 0 && u.After(r.coolUntil) {
			r.coolUntil = u
		}
	default:
		r.failed++
	}
}

// snapshot returns per-replica counters.
func (p *pool) snapshot(endpoint string) []ReplicaStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ReplicaStats, 0, len(p.reps))
	for _, r := range p.reps {
		out = append(out, ReplicaStats{
			Endpoint: endpoint, URL: r.redacted, Attempts: r.sent, Failures: r.failed,
			Outstanding: r.outstanding, CoolingUntil: r.coolUntil,
		})
	}
	return out
}

func contains(rs []*replica, r *replica) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
