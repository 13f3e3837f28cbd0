package serve

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/serve/constrain"
)

// seq is one choice being decoded.
type seq struct {
	j       *job
	index   int
	cache   *qwen3.Cache
	logits  []float32
	rng     *rand.Rand
	ntok    int
	next    int // the token sampled this step, fed to the next pass
	pending []tokenOut
	text    []byte
	sent    int
	machine *constrain.Machine
}

// newSeqs starts the n choices of j from its prefilled prompt: choice i
// draws from PCG(seed, i), so a seed gives the same text whatever else the
// engine runs, and the same tokens as sample.GenerateN.
func newSeqs(j *job, c *qwen3.Cache, lg []float32) []*seq {
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
	return seqs
}

// draw is one sampled token with what the response reports about it.
type draw struct {
	tok int
	out tokenOut
	err error
}

// drawAll samples the next token of every sequence. Each sequence has its
// own random stream and schema machine, so the draws are independent and
// run in parallel: a step of eight sequences over a large vocabulary would
// otherwise spend a large share of its time in eight serial softmaxes.
func drawAll(seqs []*seq) []draw {
	out := make([]draw, len(seqs))
	one := func(i int) {
		s := seqs[i]
		j := s.j
		if s.machine != nil {
			j.b.jsonVocab().Mask(s.machine, j.params.MaxTokens-s.ntok, j.b.stops, s.logits)
		}
		var tok int
		var lp float32
		var dist []float32
		var err error
		if j.topLogprobs > 0 {
			tok, lp, dist, err = choose(s.logits, j.params, s.rng)
		} else {
			// The same token and log-prob without the vocabulary's
			// log-probs, which only top_logprobs shows.
			tok, lp, err = sample.ChooseToken(s.logits, j.params, s.rng)
		}
		if err != nil {
			out[i].err = fmt.Errorf("sampling: %w", err)
			return
		}
		d := tokenOut{ID: tok, LogProb: lp}
		for _, id := range topK(dist, j.topLogprobs) {
			d.Top = append(d.Top, idLP{id, dist[id]})
		}
		out[i] = draw{tok: tok, out: d}
	}
	p := min(len(seqs), runtime.GOMAXPROCS(0))
	if p <= 1 || len(seqs[0].logits)*len(seqs) < 1<<14 {
		for i := range seqs {
			one(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range p {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(seqs); i = int(next.Add(1)) - 1 {
				one(i)
			}
		})
	}
	wg.Wait()
	return out
}

// emit records s's drawn token, reports it, and says whether s goes on
// (then s.next is the token to feed).
func (e *engine) emit(s *seq, d draw) bool {
	j := s.j
	if d.err != nil {
		e.fail(j, d.err)
		return false
	}
	tok := d.tok
	s.ntok++
	e.genTok.Add(1)
	s.pending = append(s.pending, d.out)
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
		s.next = tok
		return true
	}
	e.finishChoice(j)
	j.out.put(ev)
	return false
}
