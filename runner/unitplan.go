package runner

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"time"

	"mascot.dev/mascot/results"
)

// Planning a stage's units (fingerprinting each, asking the store which
// are done, linking those to the run as cached) runs in chunks, and a
// local stage's workers take each chunk's pending units as soon as it is
// classified: the first requests go out after the first chunk instead of
// after every unit, so the endpoint does not sit idle while a large
// stage is fingerprinted (docs/benchmarks.md has the figures). The first
// chunk is small; each next one twice the last, up to planChunkMax, so a
// stage of 300,000 units asks the store about 40 times.
const (
	planChunkFirst = 32
	planChunkMax   = 8192
)

// unitPlan is the planning of one stage's units.
type unitPlan struct {
	r     *run
	key   string
	units []Unit
	link  bool // link each chunk's done units to the run as cached
	bar   *bar // learns the cached units as chunks find them; may be nil
	first int  // the first chunk's size

	fps    []string // every unit's fingerprint, in the units' order
	cached []string // fingerprints of the units found done
	err    error    // what stopped the planning (read once the units ran)
}

func (r *run) newPlan(key string, units []Unit) *unitPlan {
	return &unitPlan{r: r, key: key, units: units, fps: make([]string, len(units)),
		first: max(1, min(r.concurrency(key), planChunkFirst))}
}

// planChunk is one chunk's pending units, with which of them have cached
// LLM responses (nil: not known, each unit reads its own).
type planChunk struct {
	pending []Unit
	stored  map[string]bool
}

// spans yields the bounds [lo, hi) of each chunk in turn: p.first units,
// then each chunk twice the last, up to planChunkMax.
func (p *unitPlan) spans() iter.Seq2[int, int] {
	return func(yield func(lo, hi int) bool) {
		for lo, size := 0, p.first; lo < len(p.units); lo, size = lo+size, min(2*size, planChunkMax) {
			if !yield(lo, min(lo+size, len(p.units))) {
				return
			}
		}
	}
}

// chunks returns how many chunks plan will classify.
func (p *unitPlan) chunks() int {
	n := 0
	for range p.spans() {
		n++
	}
	return n
}

// plan classifies the units chunk by chunk and hands each chunk's pending
// units to emit, in the units' order. A wanted stage (p.link) records
// itself running once its first chunk is handed on (and again at the end
// when later chunks found more cached units). An error (the context
// cancelled: nothing is half-written, each chunk's links are one
// transaction) stops it; the chunks handed on stay handed on.
func (p *unitPlan) plan(ctx context.Context, began time.Time, emit func(planChunk)) error {
	recorded := -1 // the cached count the stage row says
	record := func() {
		if recorded == len(p.cached) {
			return
		}
		recorded = len(p.cached)
		r := p.r
		_ = r.opts.Store.UpsertStage(ctx, results.Stage{RunID: r.env.RunID, Key: p.key, Kind: r.kinds[p.key].Name,
			Fingerprint: r.fps[p.key], Status: "running", UnitsTotal: len(p.units), UnitsCached: len(p.cached),
			StartedAt: began})
	}
	for lo, hi := range p.spans() {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := p.classify(ctx, lo, hi)
		if err != nil {
			return err
		}
		if hi == len(p.units) && p.bar != nil {
			p.bar.planned() // the header before the last chunk's units report
		}
		emit(c)
		if p.link && lo == 0 {
			record()
		}
	}
	if p.bar != nil {
		p.bar.planned()
	}
	if p.link {
		record()
	}
	return nil
}

// classify fingerprints units[lo:hi], looks up which are done and links
// those (p.link), and returns the rest.
func (p *unitPlan) classify(ctx context.Context, lo, hi int) (planChunk, error) {
	r := p.r
	if err := p.fingerprint(lo, hi); err != nil {
		return planChunk{}, err
	}
	fps := p.fps[lo:hi]
	done, err := r.opts.Store.DoneUnits(ctx, fps)
	if err != nil {
		return planChunk{}, err
	}
	var c planChunk
	var cached []string
	for i := lo; i < hi; i++ {
		if done[p.fps[i]] {
			cached = append(cached, p.fps[i])
		} else {
			c.pending = append(c.pending, p.units[i])
		}
	}
	if p.link {
		if _, err := r.opts.Store.LinkUnits(ctx, r.env.RunID, p.key, cached); err != nil {
			return planChunk{}, err
		}
	}
	p.cached = append(p.cached, cached...)
	if p.bar != nil {
		p.bar.addCached(len(cached))
	}
	return c, nil
}

// holding sets which of c's pending units have cached LLM responses
// (left nil without a cache: each unit then reads its own).
func (p *unitPlan) holding(ctx context.Context, c *planChunk) {
	if p.r.cache == nil || len(c.pending) == 0 {
		return
	}
	fps := make([]string, len(c.pending))
	for i, u := range c.pending {
		fps[i] = u.Fingerprint
	}
	c.stored = p.r.cache.holding(ctx, fps)
}

// fingerprintGrain is the fewest units a fingerprinting goroutine takes,
// enough work to outweigh starting it.
const fingerprintGrain = 16

// fingerprint sets the fingerprints of units[lo:hi], on up to GOMAXPROCS
// goroutines.
func (p *unitPlan) fingerprint(lo, hi int) error {
	stageFP := p.r.fps[p.key]
	one := func(i int) error {
		fp, err := UnitFingerprint(stageFP, p.units[i].Inputs)
		if err != nil {
			return fmt.Errorf("fingerprinting unit %s: %w", p.units[i].Key, err)
		}
		p.units[i].Fingerprint, p.fps[i] = fp, fp
		return nil
	}
	parts := min(runtime.GOMAXPROCS(0), (hi-lo)/fingerprintGrain)
	if parts <= 1 {
		for i := lo; i < hi; i++ {
			if err := one(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for k := range parts {
		a, b := lo+(hi-lo)*k/parts, lo+(hi-lo)*(k+1)/parts
		wg.Go(func() {
			for i := a; i < b; i++ {
				if errs[k] = one(i); errs[k] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// all plans every unit before returning the pending ones (a stage that is
// not wanted, or one a remote executor runs: it takes the whole list).
func (p *unitPlan) all(ctx context.Context, began time.Time) ([]Unit, error) {
	p.first = max(1, len(p.units)) // one chunk: nothing runs before the end
	var pending []Unit
	err := p.plan(ctx, began, func(c planChunk) { pending = append(pending, c.pending...) })
	return pending, err
}
