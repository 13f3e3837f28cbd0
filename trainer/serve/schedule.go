package serve

import (
	"fmt"
	"slices"

	"mascot.dev/mascot/trainer/qwen3"
)

// DefaultPrefillChunk is the default number of prompt tokens prefilled per
// step (Options.PrefillChunk).
const DefaultPrefillChunk = 64

// batch is what the engine runs: sequences decoding, and prompts being
// prefilled block by block (their choices start once the prompt is in).
type batch struct {
	active []*seq
	fills  []*fill
}

// fill is an admitted job whose prompt is being prefilled.
type fill struct {
	j     *job
	cache *qwen3.Cache
	fed   int // prompt tokens in cache (a reused prefix included)
}

func (b *batch) empty() bool { return len(b.active) == 0 && len(b.fills) == 0 }

// slots is the number of sequences b holds or will hold: the decoding
// ones, and every choice of the prompts being prefilled.
func (b *batch) slots() int {
	n := len(b.active)
	for _, f := range b.fills {
		n += f.j.n
	}
	return n
}

// jobs lists b's jobs once each.
func (b *batch) jobs() []*job {
	var js []*job
	for _, f := range b.fills {
		js = append(js, f.j)
	}
	for _, s := range b.active {
		if !slices.Contains(js, s.j) {
			js = append(js, s.j)
		}
	}
	return js
}

// admit moves queued jobs into the batch while their choices fit
// maxBatch (a job larger than maxBatch runs when the batch is empty). An
// admitted prompt starts from the longest prefix the prefix cache holds.
func (e *engine) admit(b *batch) {
	for {
		e.mu.Lock()
		if len(e.queue) == 0 || (!b.empty() && b.slots()+e.queue[0].n > e.maxBatch) {
			e.mu.Unlock()
			return
		}
		j := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		if err := j.ctx.Err(); err != nil {
			j.stopWatch()
			j.out.put(event{err: err})
			continue
		}
		e.running.Add(1)
		c, reused := e.prefixes.start(j.model, j.prompt)
		b.fills = append(b.fills, &fill{j: j, cache: c, fed: reused})
	}
}

// dropCancelled ends the jobs whose client went away and frees their
// sequences' places.
func (e *engine) dropCancelled(b *batch) {
	for _, f := range b.fills {
		if err := f.j.ctx.Err(); err != nil {
			e.fail(f.j, err)
		}
	}
	for _, s := range b.active {
		if err := s.j.ctx.Err(); err != nil {
			e.fail(s.j, err)
		}
	}
	b.fills = slices.DeleteFunc(b.fills, func(f *fill) bool { return f.j.failed })
	b.active = slices.DeleteFunc(b.active, releaseFailed)
}

// part is what one chunk of a pass belongs to: a decoding sequence or a
// prompt being prefilled.
type part struct {
	s *seq
	f *fill
}

// step samples one token for every decoding sequence, then runs one pass
// per base model over the sequences that go on (one token each) and the
// next blocks of the prompts being prefilled (prefillChunk tokens in all,
// oldest prompt first). A prompt whose last block ran starts its choices,
// which sample from the next step on.
func (e *engine) step(b *batch) {
	draws := drawAll(b.active)
	keep := b.active[:0]
	for i, s := range b.active {
		if !s.j.failed && e.emit(s, draws[i]) {
			keep = append(keep, s)
		} else {
			s.cache.Release()
		}
	}
	b.active = slices.DeleteFunc(keep, releaseFailed)

	// Views of one base share a pass; a base replaced by LoadModel runs its
	// remaining requests in a pass of its own.
	type pass struct {
		base   *qwen3.Model
		chunks []qwen3.Chunk
		parts  []part
	}
	var passes []*pass
	add := func(m *qwen3.Model, ch qwen3.Chunk, p part) {
		for _, ps := range passes {
			if ps.base == m.Base() {
				ps.chunks, ps.parts = append(ps.chunks, ch), append(ps.parts, p)
				return
			}
		}
		passes = append(passes, &pass{base: m.Base(), chunks: []qwen3.Chunk{ch}, parts: []part{p}})
	}
	for _, s := range b.active {
		add(s.j.model, qwen3.Chunk{Cache: s.cache, Tokens: []int{s.next}, Logits: true}, part{s: s})
	}
	budget := e.prefillChunk
	for _, f := range b.fills {
		if budget == 0 {
			break
		}
		n := min(budget, len(f.j.prompt)-f.fed)
		budget -= n
		add(f.j.model, qwen3.Chunk{Cache: f.cache, Tokens: f.j.prompt[f.fed : f.fed+n], Logits: f.fed+n == len(f.j.prompt)}, part{f: f})
		f.fed += n
	}
	for k, ps := range passes {
		// A pass's logits live until the next step's draws, which come
		// before its passes: each pass writes over the array its place
		// used a step ago.
		if k == len(e.logitBufs) {
			e.logitBufs = append(e.logitBufs, nil)
		}
		lgs, buf, err := ps.base.ExtendInto(ps.chunks, e.logitBufs[k])
		e.logitBufs[k] = buf
		for i, p := range ps.parts {
			switch {
			case err != nil && p.s != nil:
				e.fail(p.s.j, fmt.Errorf("decoding: %w", err))
			case err != nil:
				e.fail(p.f.j, fmt.Errorf("prefilling the prompt: %w", err))
			case p.s != nil:
				p.s.logits = lgs[i]
			case ps.chunks[i].Logits:
				e.prefilled(b, p.f, lgs[i])
			}
		}
	}
	b.fills = slices.DeleteFunc(b.fills, func(f *fill) bool { return f.j.failed || f.fed == len(f.j.prompt) })
	b.active = slices.DeleteFunc(b.active, releaseFailed)
}

// releaseFailed says whether s's job failed, and then gives its cache's
// memory back for other sequences (a sequence's cache is its own: the
// prefix cache keeps copies).
func releaseFailed(s *seq) bool {
	if s.j.failed {
		s.cache.Release()
	}
	return s.j.failed
}

// prefilled starts the choices of a job whose prompt is now in its cache,
// and offers the prompt to the prefix cache.
func (e *engine) prefilled(b *batch, f *fill, lg []float32) {
	j := f.j
	e.promptTok.Add(int64(len(j.prompt)))
	c := e.prefixes.finish(j.model, j.prompt, f.cache)
	b.active = append(b.active, newSeqs(j, c, lg)...)
}
