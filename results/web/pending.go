package web

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// DefaultPatience is how long a report or compare page waits for its
// tables before it answers with a page that says they are being computed
// and reloads itself (Options.Patience).
const DefaultPatience = 150 * time.Millisecond

// keepFinished is how long a computation's result waits for the reload
// that collects it (the report cache keeps it too, where it can).
const keepFinished = 5 * time.Minute

// pending are the report and compare computations of the viewer, by page
// key: a request starts one (or joins the one in progress) and waits for
// it at most the server's patience; a computation that outlives its
// request runs on, stores its tables in the report cache, and keeps its
// result here for the reload that collects it.
type pending struct {
	mu sync.Mutex
	m  map[string]*computation
}

type computation struct {
	done     chan struct{}
	val      any
	err      error
	finished time.Time
}

// await returns compute's result for key when it is ready within
// patience; ready is false when the page should say it is computing.
// compute runs detached from the request (a closed tab does not cancel
// it), once per key at a time.
func (p *pending) await(ctx context.Context, key string, patience time.Duration, compute func(context.Context) (any, error)) (val any, ready bool, err error) {
	p.mu.Lock()
	if p.m == nil {
		p.m = map[string]*computation{}
	}
	now := time.Now()
	for k, c := range p.m {
		if !c.finished.IsZero() && now.Sub(c.finished) > keepFinished {
			delete(p.m, k)
		}
	}
	c := p.m[key]
	if c == nil {
		c = &computation{done: make(chan struct{})}
		p.m[key] = c
		detached := context.WithoutCancel(ctx)
		go func() {
			v, err := compute(detached)
			p.mu.Lock()
			c.val, c.err, c.finished = v, err, time.Now()
			p.mu.Unlock()
			close(c.done)
		}()
	}
	p.mu.Unlock()
	select {
	case <-c.done: // finished since an earlier request: collect it
	default:
		timer := time.NewTimer(patience)
		defer timer.Stop()
		select {
		case <-c.done:
		case <-timer.C:
			return nil, false, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	p.mu.Lock()
	if p.m[key] == c {
		delete(p.m, key) // collected: the next request computes (or reads the cache) afresh
	}
	p.mu.Unlock()
	return c.val, true, c.err
}

// computingData is the page shown while tables are computed.
type computingData struct {
	What string
}

// renderComputing answers 202 with a page that reloads itself in a second.
func (s *server) renderComputing(w http.ResponseWriter, title, what string) error {
	w.Header().Set("Retry-After", "1")
	return s.renderStatus(w, http.StatusAccepted, "computing", page{Title: title, Refresh: 1, Data: computingData{What: what}})
}
