package serve

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/serve/constrain"
)

var (
	errQueueFull = errors.New("the request queue is full")
	errClosed    = errors.New("the server is shutting down")
)

// job is one generation request: n choices of one prompt on one model
// view.
type job struct {
	ctx    context.Context
	b      *bundle
	model  *qwen3.Model // base or adapter view
	prompt []int
	n      int
	params sample.Params // Processor unused; the schema drives masking
	// stopStrs end a choice when its text contains one; includeStop keeps
	// the stop string in the text.
	stopStrs    []string
	includeStop bool
	topLogprobs int
	schema      *constrain.Schema
	out         *outbox

	// Owned by the engine's goroutine once submitted.
	stopSet map[int]bool
	eos     map[int]bool
	left    int // choices not finished
	failed  bool
	// stopWatch ends the context watch that wakes the engine when the
	// client goes away.
	stopWatch func() bool
}

// tokenOut is one generated token with its log-prob and the most likely
// alternatives.
type tokenOut struct {
	ID      int
	LogProb float32
	Top     []idLP
}

type idLP struct {
	ID      int
	LogProb float32
}

// event is what the engine reports about one choice: new text that is safe
// to show (no partial stop string, no partial UTF-8 character), the tokens
// generated since the last event, and the finish reason on the last one.
type event struct {
	index      int
	text       string
	tokens     []tokenOut
	finish     string
	stopReason any // nil, a stop token id or a stop string
	err        error
}

// outbox buffers events from the engine for the request's handler; the
// engine never blocks on a slow client.
type outbox struct {
	mu     sync.Mutex
	evs    []event
	signal chan struct{}
}

func newOutbox() *outbox { return &outbox{signal: make(chan struct{}, 1)} }

func (o *outbox) put(e event) {
	o.mu.Lock()
	o.evs = append(o.evs, e)
	o.mu.Unlock()
	select {
	case o.signal <- struct{}{}:
	default:
	}
}

func (o *outbox) take() []event {
	o.mu.Lock()
	defer o.mu.Unlock()
	evs := o.evs
	o.evs = nil
	return evs
}

// engine is the continuous-batching scheduler: a bounded queue of jobs and
// one goroutine that runs every admitted sequence together, one pass over
// the weights per step (schedule.go). Jobs join at step boundaries, while
// their choices fit maxBatch; their prompts are prefilled in blocks of at
// most prefillChunk tokens per step beside the decoding sequences; finished
// or cancelled jobs leave at the next boundary.
type engine struct {
	maxQueue, maxBatch, prefillChunk int

	mu     sync.Mutex
	queue  []*job
	closed bool
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}

	prefixes *prefixCache

	// logitBufs are the arrays the passes of a step write their logits
	// to, one per pass, reused from step to step (step).
	logitBufs [][]float32

	running              atomic.Int64
	promptTok, genTok    atomic.Int64
	finishedOK, finished atomic.Int64
	// gone counts the requests whose client went away before they ended.
	gone atomic.Int64

	// arriving says whether requests are being read and turned into
	// jobs (gather). gatherWait bounds the wait.
	arriving   func() bool
	gatherWait time.Duration

	// beforeStep, when set (tests), runs before every step; observe
	// receives the number of sequences in each step's pass (decoding
	// ones, plus the choices of each prompt being prefilled).
	beforeStep func()
	observe    func(n int)
}

func newEngine(maxQueue, maxBatch, prefillChunk int, prefixBytes int64, arriving func() bool) *engine {
	e := &engine{maxQueue: maxQueue, maxBatch: maxBatch, prefillChunk: prefillChunk, prefixes: newPrefixCache(prefixBytes),
		arriving: arriving, gatherWait: gatherWait, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go e.run()
	return e
}

// submit queues j or returns errQueueFull / errClosed.
func (e *engine) submit(j *job) error {
	j.stopSet, j.eos = map[int]bool{}, map[int]bool{}
	for _, s := range j.params.StopTokens {
		j.stopSet[s] = true
	}
	for _, s := range j.b.stops {
		j.eos[s] = true
	}
	j.left = j.n
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return errClosed
	case len(e.queue) >= e.maxQueue:
		e.mu.Unlock()
		return errQueueFull
	}
	e.queue = append(e.queue, j)
	// A client that goes away frees its place at once: a queued job leaves
	// the queue now, a running one at the next step boundary.
	j.stopWatch = context.AfterFunc(j.ctx, func() { e.cancelled(j) })
	e.mu.Unlock()
	e.poke()
	return nil
}

// cancelled takes j out of the queue if it is still there and wakes the
// engine, which drops j's sequences if it is running.
func (e *engine) cancelled(j *job) {
	e.gone.Add(1)
	e.mu.Lock()
	i := slices.Index(e.queue, j)
	if i >= 0 {
		e.queue = slices.Delete(e.queue, i, i+1)
	}
	e.mu.Unlock()
	if i >= 0 {
		j.out.put(event{err: j.ctx.Err()})
	}
	e.poke()
}

func (e *engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *engine) waiting() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

func (e *engine) close() {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.quit)
	}
	e.mu.Unlock()
	<-e.done
}

func (e *engine) run() {
	defer close(e.done)
	var b batch
	for {
		select {
		case <-e.quit:
			e.mu.Lock()
			q := e.queue
			e.queue = nil
			e.mu.Unlock()
			for _, j := range q {
				j.stopWatch()
				j.out.put(event{err: errClosed})
			}
			for _, j := range b.jobs() {
				e.fail(j, errClosed)
			}
			return
		default:
		}
		e.dropCancelled(&b)
		idle := b.empty()
		e.admit(&b)
		if idle && !b.empty() {
			e.gather(&b)
		}
		if b.empty() {
			select {
			case <-e.wake:
			case <-e.quit:
			}
			continue
		}
		if e.beforeStep != nil {
			e.beforeStep()
			e.dropCancelled(&b)
			e.admit(&b)
		}
		if e.observe != nil {
			e.observe(b.slots())
		}
		e.step(&b)
	}
}

// fail ends a job with err (once).
func (e *engine) fail(j *job, err error) {
	if j.failed || j.left == 0 {
		return
	}
	j.failed = true
	j.stopWatch()
	e.running.Add(-1)
	e.finished.Add(1)
	j.out.put(event{err: err})
}

// finishChoice counts one finished choice of j, and j itself when it was
// the last. The gauges change before the last event goes out, so a client
// that reads /metrics after its response sees its request finished.
func (e *engine) finishChoice(j *job) {
	j.left--
	if j.left == 0 {
		j.stopWatch()
		e.running.Add(-1)
		e.finished.Add(1)
		e.finishedOK.Add(1)
	}
}
