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
// The sequences go in groups of drawGroup, whose softmaxes'
// sums run together (sample.ChooseTokens).
func drawAll(seqs []*seq) []draw {
	out := make([]draw, len(seqs))
	group := func(lo, hi int) {
		var idx []int
		var lgs [][]float32
		var ps []sample.Params
		var rs []*rand.Rand
		for i := lo; i < hi; i++ {
			s := seqs[i]
			j := s.j
			if s.machine != nil {
				j.b.jsonVocab().Mask(s.machine, j.params.MaxTokens-s.ntok, j.b.stops, s.logits)
			}
			if j.topLogprobs == 0 {
				idx, lgs, ps, rs = append(idx, i), append(lgs, s.logits), append(ps, j.params), append(rs, s.rng)
				continue
			}
			tok, lp, dist, err := choose(s.logits, j.params, s.rng)
			if err != nil {
				out[i].err = fmt.Errorf("sampling: %w", err)
				continue
			}
			d := tokenOut{ID: tok, LogProb: lp}
			for _, id := range topK(dist, j.topLogprobs) {
				d.Top = append(d.Top, idLP{id, dist[id]})
			}
			out[i] = draw{tok: tok, out: d}
		}
		// The same tokens and log-probs without the vocabulary's
		// log-probs, which only top_logprobs shows.
		toks, lps, errs := make([]int, len(idx)), make([]float32, len(idx)), make([]error, len(idx))
		sample.ChooseTokens(lgs, ps, rs, toks, lps, errs)
		for k, i := range idx {
			if errs[k] != nil {
				out[i].err = fmt.Errorf("sampling: %w", errs[k])
				continue
			}
			out[i] = draw{tok: toks[k], out: tokenOut{ID: toks[k], LogProb: lps[k]}}
		}
	}
	groups := (len(seqs) + drawGroup - 1) / drawGroup
	p := min(groups, runtime.GOMAXPROCS(0))
	if p <= 1 || len(seqs[0].logits)*len(seqs) < 1<<14 {
		for lo := 0; lo < len(seqs); lo += drawGroup {
			group(lo, min(lo+drawGroup, len(seqs)))
		}
		return out
	}
	// The caller samples groups too: one goroutine fewer to wake.
	var next atomic.Int64
	worker := func() {
		for g := int(next.Add(1)) - 1; g < groups; g = int(next.Add(1)) - 1 {
			group(g*drawGroup, min((g+1)*drawGroup, len(seqs)))
		}
	}
	var wg sync.WaitGroup
	for range p - 1 {
		wg.Go(worker)
	}
	worker()
	wg.Wait()
	return out
}

// drawGroup is how many sequences one CPU samples together: the four
// whose sums share a loop.
const drawGroup = 4

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
