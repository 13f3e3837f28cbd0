package serve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

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

	stopSet map[int]bool
	eos     map[int]bool
	left    int // choices not finished
	failed  bool
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

// seq is one choice being decoded.
type seq struct {
	j       *job
	index   int
	cache   *qwen3.Cache
	logits  []float32
	rng     *rand.Rand
	ntok    int
	pending []tokenOut
	text    []byte
	sent    int
	machine *constrain.Machine
}

// engine is the scheduler: a bounded queue of jobs and one goroutine that
// decodes every admitted sequence together, one token per step, batching
// the sequences of each model view into one StepBatch call.
type engine struct {
	maxQueue, maxBatch int

	mu     sync.Mutex
	queue  []*job
	closed bool
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}

	prefixes *prefixCache

	running              atomic.Int64
	promptTok, genTok    atomic.Int64
	finishedOK, finished atomic.Int64

	// beforeStep, when set (tests), runs before every decoding step;
	// observe receives the number of sequences in each step.
	beforeStep func()
	observe    func(n int)
}

func newEngine(maxQueue, maxBatch int, prefixBytes int64) *engine {
	e := &engine{maxQueue: maxQueue, maxBatch: maxBatch, prefixes: newPrefixCache(prefixBytes), wake: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
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
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return nil
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
	var active []*seq
	for {
		select {
		case <-e.quit:
			e.mu.Lock()
			q := e.queue
			e.queue = nil
			e.mu.Unlock()
			for _, j := range q {
				j.out.put(event{err: errClosed})
			}
			for _, s := range active {
				e.fail(s.j, errClosed)
			}
			return
		default:
		}
		active = e.admit(active)
		if len(active) == 0 {
			select {
			case <-e.wake:
			case <-e.quit:
			}
			continue
		}
		if e.beforeStep != nil {
			e.beforeStep()
		}
		active = e.admit(active)
		if e.observe != nil {
			e.observe(len(active))
		}
		active = e.step(active)
	}
}

// admit moves queued jobs into the batch while their choices fit.
func (e *engine) admit(active []*seq) []*seq {
	for {
		e.mu.Lock()
		if len(e.queue) == 0 || (len(active) > 0 && len(active)+e.queue[0].n > e.maxBatch) {
			e.mu.Unlock()
			return active
		}
		j := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		if err := j.ctx.Err(); err != nil {
			j.out.put(event{err: err})
			continue
		}
		e.running.Add(1)
		seqs, err := e.prefill(j)
		if err != nil {
			e.fail(j, err)
			continue
		}
		e.promptTok.Add(int64(len(j.prompt)))
		active = append(active, seqs...)
	}
}

func (e *engine) prefill(j *job) ([]*seq, error) {
	c, lg, err := e.prefixes.prefill(j.model, j.prompt)
	if err != nil {
		return nil, err
	}
	seqs := make([]*seq, j.n)
	for i := range seqs {
		s := &seq{j: j, index: i, cache: c, logits: lg, rng: rand.New(rand.NewPCG(j.params.Seed, uint64(i)))}
		if i > 0 {
			s.cache, s.logits = c.Clone(), slices.Clone(lg)
		}
		if j.schema != nil {
			s.machine = j.schema.Start()
		}
		seqs[i] = s
	}
	return seqs, nil
}

// fail ends a job with err (once).
func (e *engine) fail(j *job, err error) {
	if j.failed || j.left == 0 {
		return
	}
	j.failed = true
	e.running.Add(-1)
	e.finished.Add(1)
	j.out.put(event{err: err})
}

// step samples one token for every active sequence and runs the model once
// per view over those that go on.
func (e *engine) step(active []*seq) []*seq {
	type group struct {
		model  *qwen3.Model
		seqs   []*seq
		caches []*qwen3.Cache
		toks   []int
	}
	var groups []*group
	var keep []*seq
	for _, s := range active {
		if s.j.failed {
			continue
		}
		if err := s.j.ctx.Err(); err != nil {
			e.fail(s.j, err)
			continue
		}
		tok, ok := e.sampleOne(s)
		if !ok {
			continue
		}
		var g *group
		for _, x := range groups {
			if x.model == s.j.model {
				g = x
			}
		}
		if g == nil {
			g = &group{model: s.j.model}
			groups = append(groups, g)
		}
		g.seqs, g.caches, g.toks = append(g.seqs, s), append(g.caches, s.cache), append(g.toks, tok)
		keep = append(keep, s)
	}
	for _, g := range groups {
		lg, err := g.model.StepBatch(g.caches, g.toks)
		for i, s := range g.seqs {
			if err != nil {
				e.fail(s.j, fmt.Errorf("decoding: %w", err))
				continue
			}
			s.logits = lg[i]
		}
	}
	return slices.DeleteFunc(keep, func(s *seq) bool { return s.j.failed })
}

// sampleOne draws the next token of s, reports it, and says whether the
// sequence goes on.
func (e *engine) sampleOne(s *seq) (int, bool) {
	j := s.j
	if s.machine != nil {
		j.b.jsonVocab().Mask(s.machine, j.params.MaxTokens-s.ntok, j.b.stops, s.logits)
	}
	tok, lp, dist, err := choose(s.logits, j.params, s.rng)
	if err != nil {
		e.fail(j, fmt.Errorf("sampling: %w", err))
		return 0, false
	}
	s.ntok++
	e.genTok.Add(1)
	out := tokenOut{ID: tok, LogProb: lp}
	for _, id := range topK(dist, j.topLogprobs) {
		out.Top = append(out.Top, idLP{id, dist[id]})
	}
	s.pending = append(s.pending, out)
	var finish string
	var reason any
	switch {
	case j.eos[tok] || j.stopSet[tok]:
		finish = sample.FinishStop
		if !j.eos[tok] {
			reason = tok
		}
	default:
		b := j.b.spell(tok)
		from := len(s.text)
		s.text = append(s.text, b...)
		if s.machine != nil {
			s.machine.FeedBytes(b)
		}
		if at, str := findStop(s.text, from, j.stopStrs); at >= 0 {
			finish, reason = sample.FinishStop, str
			if !j.includeStop {
				s.text = s.text[:at]
			} else {
				s.text = s.text[:at+len(str)]
			}
		} else if s.ntok >= j.params.MaxTokens || s.cache.Len()+1 >= j.b.maxLen {
			finish = sample.FinishLength
		}
	}
	safe := len(s.text)
	if finish == "" {
		safe = safePrefix(s.text, j.stopStrs)
	}
	ev := event{index: s.index, tokens: s.pending, finish: finish, stopReason: reason}
	if safe > s.sent {
		ev.text = string(s.text[s.sent:safe])
		s.sent = safe
	}
	s.pending = nil
	if finish == "" {
		j.out.put(ev)
		return tok, true
	}
	// The gauges change before the last event goes out, so a client that
	// reads /metrics after its response sees its request finished.
	j.left--
	if j.left == 0 {
		e.running.Add(-1)
		e.finished.Add(1)
		e.finishedOK.Add(1)
	}
	j.out.put(ev)
	return 0, false
}
