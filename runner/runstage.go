package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"mascot.dev/mascot/results"
)

// inflight de-duplicates units executing concurrently in this process.
var inflight singleflight.Group

// runStage resolves a stage's units, reuses the done ones, runs the rest
// and publishes the stage's output.
func (r *run) runStage(ctx context.Context, key string) error {
	exp := r.opts.Loaded.Experiment
	k := r.kinds[key]
	began := time.Now()
	sum := &StageSummary{Key: key, Kind: k.Name, Fingerprint: r.fps[key]}
	defer func() {
		sum.Seconds = time.Since(began).Seconds()
		r.record(key, sum)
	}()
	fail := func(err error) error {
		sum.Status, sum.Error = "failed", err.Error()
		_ = r.opts.Store.UpsertStage(context.WithoutCancel(ctx), results.Stage{RunID: r.env.RunID, Key: key,
			Kind: k.Name, Fingerprint: r.fps[key], Status: "failed", Error: err.Error(), UnitsTotal: sum.Units,
			UnitsDone: sum.Ran, UnitsCached: sum.Cached, UnitsFailed: sum.Failed, StartedAt: began, FinishedAt: time.Now()})
		return fmt.Errorf("stage %s: %w", key, err)
	}
	if err := r.prepareEndpoints(ctx, key); err != nil {
		return fail(err)
	}
	st, err := k.New(r.env, exp.Stages[key])
	if err != nil {
		return fail(fmt.Errorf("configuring: %w", err))
	}
	units, err := st.Units(ctx)
	if err != nil {
		return fail(fmt.Errorf("listing units: %w", err))
	}
	if r.opts.Slice.covers(key) {
		sum.ContextsTotal = contextsOf(units)
	}
	units = r.opts.Slice.apply(key, units)
	sum.Units = len(units)
	plan := r.newPlan(key, units)
	if !r.want[key] {
		pending, err := plan.all(ctx, began)
		if err != nil {
			return fail(err)
		}
		sum.Cached = len(plan.cached)
		if len(pending) > 0 {
			return fail(fmt.Errorf("%w: %d of %d units are not done; run it first (drop --only/--from)",
				ErrStageFailed, len(pending), len(units)))
		}
		sum.Status = "reused"
		return r.publish(ctx, key, plan.fps)
	}
	plan.link = true
	plan.bar = r.prog.addPlanning(key, len(units))
	ran, failed, firstErr := r.execUnits(ctx, key, st, plan, began)
	plan.bar.finish()
	cached, fps := plan.cached, plan.fps
	sum.Cached = len(cached)
	sum.Ran, sum.Failed = ran, failed
	counters := r.env.takeCounters(key)
	// A unit another run of this process (a sweep variant) executed while
	// this one waited for it is reuse, like a cached unit.
	sum.Cached += int(counters["units_shared"])
	counters["units_failed"] += int64(failed)
	// A stage that reused units records every counter the runs that
	// produced them did (zeros for the work this run did not do), so a
	// cached rerun's run_summary.json lists what the first run's lists.
	names, err := r.opts.Store.ProducedCounterNames(ctx, cached)
	if err != nil {
		return fail(err)
	}
	for _, n := range names {
		if !results.IsLatencyCounter(n) {
			counters[n] += 0
		}
	}
	if err := r.opts.Store.AddCounters(context.WithoutCancel(ctx), r.env.RunID, key, counters); err != nil {
		return fail(err)
	}
	// The units' own counters were committed with them; read the stage's
	// back so the summary says exactly what the database holds.
	all, err := r.opts.Store.StageCounters(context.WithoutCancel(ctx), r.env.RunID)
	if err != nil {
		return fail(err)
	}
	sum.Counters = fillRoleCounters(all[key])
	if plan.err != nil {
		return fail(plan.err)
	}
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	if failed > 0 {
		return fail(fmt.Errorf("%w: %d of %d units failed; first: %v", ErrStageFailed, failed, len(units), firstErr))
	}
	if f, ok := st.(Finisher); ok && !r.inShard(key) {
		if err := f.Finish(ctx); err != nil {
			return fail(fmt.Errorf("finishing: %w", err))
		}
	}
	sum.Status = "done"
	if r.opts.BeforePublish != nil {
		if err := r.opts.BeforePublish(ctx, key, fps); err != nil {
			return fail(err)
		}
	}
	if err := r.publish(ctx, key, fps); err != nil {
		return fail(err)
	}
	return r.opts.Store.UpsertStage(ctx, results.Stage{RunID: r.env.RunID, Key: key, Kind: k.Name,
		Fingerprint: r.fps[key], Status: "done", UnitsTotal: sum.Units, UnitsDone: ran, UnitsCached: sum.Cached,
		StartedAt: began, FinishedAt: time.Now()})
}

// runUnits runs the pending units of the chunks it receives, up to the
// stage's concurrency, until chunks is closed.
func (r *run) runUnits(ctx context.Context, key string, st Stage, chunks <-chan planChunk, bar *bar) (int, int, error) {
	limit := r.concurrency(key)
	var ran, failed atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ahead aheadUnits
	do := func(j claimedUnit) {
		u := j.u
		// The unit's commit is on its way: the store may hold a group
		// for it (results.ExpectCommits); queued, or not coming, it is
		// no longer expected.
		r.opts.Store.ExpectCommits(1)
		queued := sync.OnceFunc(func() { r.opts.Store.ExpectCommits(-1) })
		defer queued()
		ref := r.unitRef(key, u)
		tctx, tally := withUnitTally(uctx, key, r.cache)
		execute := func(waited bool) error {
			if r.cache != nil {
				// A unit another process held may have cached
				// responses since the stage listed them.
				r.cache.prefetch(uctx, u.Fingerprint, j.stored || waited)
				defer r.cache.forget(u.Fingerprint)
			}
			commit, err := st.Run(tctx, u)
			if err == nil {
				queued()
				if err = r.opts.Store.CommitUnit(uctx, ref, tally.commitWith(key, commit)); err == nil {
					tally.committed()
				}
			}
			if err != nil {
				r.release(ctx, u.Fingerprint)
			}
			return tally.withFirstFailure(err)
		}
		executed := j.claimed()
		var err error
		if executed {
			// Claimed ahead (claimAhead) for this run, which executes it
			// itself: a concurrent run in this process that reaches it
			// waits for the claim as another process would.
			err = execute(false)
		} else {
			ahead.wait(uctx, u.Fingerprint)
			// Concurrent runs in this process (sweep variants) that reach
			// the same unit share one execution; the others wait for it
			// and then link the committed unit as cached.
			_, err, _ = inflight.Do(u.Fingerprint, func() (any, error) {
				// Another process may be executing it: wait for that.
				// The claim marks it running; the commit releases it. A
				// unit another run committed since this stage listed its
				// pending units is not claimed.
				mine, waited, err := r.claim(uctx, key, ref)
				if err != nil || !mine {
					return nil, err
				}
				executed = true
				return nil, execute(waited)
			})
		}
		if !executed && err == nil {
			queued()
			err = r.opts.Store.CommitUnit(uctx, ref, nil) // links it, as cached
			if err == nil {
				r.env.Count(key, "units_shared", 1)
				bar.inc()
				return
			}
		}
		if err != nil {
			if uctx.Err() != nil {
				return // interrupted: the unit stays pending for the rerun
			}
			failed.Add(1)
			once.Do(func() { firstErr = fmt.Errorf("unit %s: %w", u.Key, err) })
			queued()
			if ferr := r.opts.Store.FailUnitWith(context.WithoutCancel(ctx), ref, err.Error(), func(tx *results.Tx) error {
				return tally.commit(tx, key)
			}); ferr != nil {
				r.opts.Log.Error("recording failed unit", "stage", key, "unit", u.Key, "err", ferr)
			} else {
				tally.committed()
			}
			r.opts.Log.Warn("unit failed", "stage", key, "unit", u.Key, "err", err)
			bar.fail()
			if r.opts.Strict {
				cancel()
			}
			return
		}
		ran.Add(1)
		bar.inc()
	}
	// Up to limit workers take the units in turn, one more started for
	// each unit until there are limit: a goroutine per unit started with
	// a small stack and grew it again, copying, on its way through the
	// HTTP client and SQLite; a worker keeps its grown stack.
	units := make(chan claimedUnit)
	workers := 0
	for j := range r.claimAhead(uctx, key, chunks, limit, &ahead) {
		if uctx.Err() != nil {
			continue // the rest stay pending; the planning goes on to its end
		}
		if workers < limit {
			workers++
			wg.Go(func() {
				for j := range units {
					if uctx.Err() == nil {
						do(j)
					}
					if j.claimed() {
						close(j.done)
					}
				}
			})
		}
		select {
		case units <- j:
		case <-uctx.Done():
		}
	}
	close(units)
	wg.Wait()
	return int(ran.Load()), int(failed.Load()), firstErr
}

// A stage that sets no concurrency keeps UnitsPerEndpointSlot units in
// flight per slot of the largest concurrency among the endpoints its kind
// names (schema.KindSpec.Endpoints), or DefaultConcurrency when none sets
// one. A unit that is claiming, building its prompts or waiting for its
// group to commit holds no HTTP slot, so as many units as slots (or twice
// as many, measured) leave slots idle whenever a group commit is slow; the
// client's semaphore still bounds requests. docs/stages.md states both
// numbers, generated from these constants.
const (
	UnitsPerEndpointSlot = 4
	DefaultConcurrency   = 4
)

func (r *run) concurrency(key string) int {
	exp := r.opts.Loaded.Experiment
	st := exp.Stages[key]
	if st.Concurrency > 0 {
		return st.Concurrency
	}
	best := 0
	kind, _ := exp.Kinds.Lookup(st.Kind)
	for _, f := range kind.Endpoints {
		if name := rawString(st.Raw, f); name != "" {
			if ep, ok := exp.Endpoints[name]; ok && ep.Concurrency > best {
				best = ep.Concurrency
			}
		}
	}
	if best == 0 {
		return DefaultConcurrency
	}
	return UnitsPerEndpointSlot * best
}

// publish makes a finished stage visible to its dependants.
func (r *run) publish(ctx context.Context, key string, fps []string) error {
	arts, err := r.opts.Store.UnitArtifacts(ctx, fps)
	if err != nil {
		return err
	}
	r.env.setOutput(&Output{Key: key, Kind: r.kinds[key].Name, Fingerprint: r.fps[key], Units: fps, Artifacts: arts})
	return nil
}

// claimPoll is how often a unit claimed by another live run is checked.
const claimPoll = 100 * time.Millisecond

// claim claims unit u for this run in the store and marks it running.
// While another live run
// (another process on the same database) holds it, claim waits; it returns
// false when that run got the unit done (or it was done already), true
// once the claim is this run's (free, released after the other run failed
// it, or taken over from a run whose process is gone). waited says another
// run held it first.
func (r *run) claim(ctx context.Context, key string, u results.Unit) (mine, waited bool, err error) {
	fp := u.Fingerprint
	for {
		holder, err := r.opts.Store.ClaimAndStartUnit(ctx, u)
		if err != nil || holder == r.env.RunID || holder == "" {
			return err == nil && holder != "", waited, err
		}
		if !waited {
			waited = true
			r.env.Count(key, "units_waited", 1)
		}
		t := time.NewTimer(claimPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, waited, ctx.Err()
		case <-t.C:
		}
		if done, err := r.opts.Store.UnitDone(ctx, fp); err != nil || done {
			return false, waited, err
		}
	}
}

// release drops this run's claim on unit fp.
func (r *run) release(ctx context.Context, fp string) {
	if err := r.opts.Store.ReleaseClaim(context.WithoutCancel(ctx), fp, r.env.RunID); err != nil {
		r.opts.Log.Warn("releasing a unit claim", "err", err)
	}
}
