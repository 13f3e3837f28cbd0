package serve

import "time"

// gatherWait bounds how long an idle engine holds its first step while
// other requests' bodies are still being read and parsed, so that a burst
// of requests arriving together starts in one pass instead of the first
// running alone: otherwise the first request's prompt costs a pass of its
// own, and the others, one step behind it, need one more step at the end
// (docs/benchmarks.md counts the passes). A request that comes alone
// waits one look (gatherPoll, no CPU: a timer), and a waiting request's
// first token is delayed by at most gatherWait.
const gatherWait = 2 * time.Millisecond

// gatherPoll is how often the wait looks again at the requests arriving:
// a request whose body is read but is refused (a 400) pokes no one.
const gatherPoll = 200 * time.Microsecond

// gather runs when the engine was idle and has just admitted work: while
// the batch has room and requests are arriving (their bodies being read or
// turned into jobs), it waits for them to be queued and admits them, for
// at most e.gatherWait (gatherWait; tests set it longer).
func (e *engine) gather(b *batch) {
	deadline := time.Now().Add(e.gatherWait)
	var t *time.Timer
	// The first look always waits, and so does every look after one that
	// brought a request: requests posted together are often still
	// goroutines waiting for a CPU, or bytes in a socket, when the first
	// one is queued, and show no body being read yet.
	for grew := true; b.slots() < e.maxBatch && (grew || e.arriving()); {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		if t == nil {
			t = time.NewTimer(min(left, gatherPoll))
			defer t.Stop()
		} else {
			t.Reset(min(left, gatherPoll))
		}
		select {
		case <-e.wake:
		case <-t.C:
		case <-e.quit:
			return
		}
		n := b.slots()
		e.admit(b)
		grew = b.slots() > n
	}
	// A request whose body was done just before the last look may have
	// been queued since.
	e.admit(b)
}
