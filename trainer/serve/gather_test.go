package serve

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestIdleEngineGathersArrivingRequests: an idle engine that gets a
// request while another is still arriving holds its first step until the
// second is queued, and both start in one pass; once nothing is arriving
// it starts.
func TestIdleEngineGathersArrivingRequests(t *testing.T) {
	s, url := startServer(t, Options{})
	var arriving atomic.Bool
	arriving.Store(true)
	s.eng.arriving, s.eng.gatherWait = arriving.Load, time.Minute // the test decides when arrivals end
	steps := stepSizes(s, nil)
	var wg sync.WaitGroup
	send := func(user string) {
		wg.Go(func() {
			code, body := post(t, url+"/chat/completions", map[string]any{"model": "tiny", "user": user,
				"messages": msgs("hello " + user), "temperature": 1, "seed": 1, "max_tokens": 4})
			if code != 200 {
				t.Errorf("%s: %d %s", user, code, body)
			}
		})
	}
	send("first")
	waitFor(t, func() bool { return s.eng.running.Load() == 1 })
	send("second")
	waitFor(t, func() bool { return s.eng.running.Load() == 2 })
	arriving.Store(false)
	wg.Wait()
	if sizes := steps(); len(sizes) == 0 || sizes[0] != 2 {
		t.Errorf("sequences per step %v: want both requests in the first step", sizes)
	}
}
