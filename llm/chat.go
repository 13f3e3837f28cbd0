package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Chat sends req to the endpoint of req.Role and returns its choices with
// <think> blocks stripped. With a Cache and a non-empty req.CacheKey, a
// stored response is replayed (Cached set) and a new one is stored.
// Failures are *Error values.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	tl := TallyFrom(ctx)
	c.stats.add(func(s *Stats) { s.Requests++ })
	tl.add(req.Role, func(r *RoleTally) { r.Requests++ })
	st, err := c.endpointFor(req)
	if err != nil {
		e := &Error{Kind: KindConfig, Role: req.Role, Message: err.Error(), cause: ErrNoEndpoint}
		c.finish(ctx, start, req, nil, "", Response{}, e)
		return Response{}, e
	}
	if c.cfg.Cache != nil && req.CacheKey != "" {
		resp, ok, err := c.cfg.Cache.Get(req.CacheKey)
		switch {
		case err != nil:
			c.stats.add(func(s *Stats) { s.CacheErrors++ })
		case ok:
			resp.Cached = true
			c.countHit(tl, req, resp)
			resp.Counted = false // bookkeeping between the cache and the counters only
			c.trace(start, req, st, resp.ModelID, resp, nil)
			return resp, nil
		default:
			c.stats.add(func(s *Stats) { s.CacheMisses++ })
		}
	}
	if c.cfg.Offline {
		if c.cfg.Missed != nil {
			c.cfg.Missed(req.Role, req.CacheKey)
		}
		e := offlineError(req, st.ep.Name)
		c.finish(ctx, start, req, st, "", Response{}, e)
		return Response{}, e
	}
	if req.Seed == nil && st.ep.Sampling.Seed == nil && c.cfg.RunSeed != nil && req.CacheKey != "" {
		seed := DeriveSeed(*c.cfg.RunSeed, req.CacheKey)
		req.Seed = &seed
	}
	model, err := st.modelID(ctx, c, req.Model)
	if err != nil {
		e := &Error{Kind: KindOf(err), Role: req.Role, Endpoint: st.ep.Name, Message: st.redact(err.Error())}
		if e.Kind == "" {
			e.Kind = KindConnection
		}
		c.finish(ctx, start, req, st, "", Response{}, e)
		return Response{}, e
	}
	resp, ids, err := c.chatWithRetries(ctx, st, req, model, start)
	if err != nil {
		c.settle(ids)
		c.finish(ctx, start, req, st, model, Response{}, err)
		return Response{}, err
	}
	resp.RequestIDs = ids
	if c.cfg.Cache != nil && req.CacheKey != "" {
		c.cfg.Cache.Put(req.CacheKey, resp)
	} else {
		c.settle(ids)
	}
	c.finish(ctx, start, req, st, model, resp, nil)
	tl.counted(req.CacheKey)
	resp.RequestIDs = nil
	return resp, nil
}

// countHit counts a reply served from the cache: a cache hit when the work
// that fetched it was committed (its usage counted there), else a reply
// reused from work lost to an interruption, whose usage this request
// counts, once.
func (c *Client) countHit(tl *Tally, req Request, resp Response) {
	if resp.Counted {
		c.stats.add(func(s *Stats) { s.CacheHits++; s.Succeeded++ })
		tl.add(req.Role, func(r *RoleTally) { r.CacheHits++ })
		return
	}
	c.stats.add(func(s *Stats) {
		s.Reused++
		s.Succeeded++
		s.TokensIn += int64(resp.PromptTokens)
		s.TokensOut += int64(resp.CompletionTokens)
	})
	tl.add(req.Role, func(r *RoleTally) {
		r.Reused++
		r.TokensIn += int64(resp.PromptTokens)
		r.TokensOut += int64(resp.CompletionTokens)
	})
	tl.counted(req.CacheKey)
}

// settle tells the journal that the outcomes of attempts ids are known.
func (c *Client) settle(ids []string) {
	if c.cfg.Journal != nil && len(ids) > 0 {
		c.cfg.Journal.Settled(ids)
	}
}

// chatWithRetries runs the attempt loop under the total deadline. It
// returns the journal ids of the attempts it sent (nil without a journal).
func (c *Client) chatWithRetries(ctx context.Context, st *endpointState, req Request, model string,
	start time.Time) (Response, []string, error) {
	ep := st.ep
	tl := TallyFrom(ctx)
	// The total deadline gets a context of its own only when the request
	// waits (for a slot, or before a retry): an attempt's context ends at
	// the earlier of its own deadline and this one, so a request that gets
	// a slot at once starts one timer instead of two.
	deadline := time.Now().Add(ep.TotalTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var tctx context.Context
	var cancel context.CancelFunc
	total := func() context.Context {
		if tctx == nil {
			tctx, cancel = context.WithDeadline(ctx, deadline)
		}
		return tctx
	}
	defer func() {
		if cancel != nil {
			cancel()
		}
	}()
	creq, err := buildChatRequest(ep, req, model)
	if err != nil {
		return Response{}, nil, &Error{Kind: KindConfig, Role: req.Role, Endpoint: ep.Name, Message: err.Error()}
	}
	reuse := true // no attempt went through net/http (chatRequest)
	defer func() {
		if reuse {
			creq.release()
		}
	}()
	journal := c.cfg.Journal
	if req.CacheKey == "" {
		journal = nil
	}
	var ids []string
	var tried []*replica
	last := Error{Role: req.Role, Endpoint: ep.Name} // on the stack: a failure returns a copy
	for n := 1; ; n++ {
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			return Response{}, ids, ctxError(ctx, &last, n-1)
		}
		select {
		case st.sem <- struct{}{}:
		default:
			select {
			case st.sem <- struct{}{}:
			case <-total().Done():
				return Response{}, ids, ctxError(ctx, &last, n-1)
			}
		}
		var id string
		if journal != nil {
			// Recorded before it is sent: a kill after this point still
			// counts the attempt the server may have received.
			var err error
			if id, err = journal.Sending(ctx, req.CacheKey, req.Role, n); err != nil {
				<-st.sem
				last.Kind, last.Attempts, last.Message = KindJournal, n-1, "recording the request before sending it: "+err.Error()
				return Response{}, ids, new(last)
			}
			ids = append(ids, id)
		}
		rep := st.pool.pick(tried)
		tried = append(tried, rep)
		c.stats.add(func(s *Stats) {
			s.Attempts++
			if n > 1 {
				s.Retries++
			}
		})
		if journal == nil {
			tl.add(req.Role, func(r *RoleTally) { r.Attempts++ })
		}
		out, as, kind, msg := c.attempt(ctx, deadline, st, rep, creq, id)
		reuse = reuse && !as.netHTTP
		st.pool.done(rep, kind, as.retryAfter)
		<-st.sem
		if kind == "" {
			return st.scrub(c.toResponse(out, model, rep, n, start)), ids, nil
		}
		if ctx.Err() != nil || (kind == KindTimeout && !time.Now().Before(deadline)) {
			// the caller's or the total deadline ended the attempt
			last.URL, last.Status, last.Message = rep.redacted, as.status, st.redact(msg)
			return Response{}, ids, ctxError(ctx, &last, n)
		}
		c.stats.add(func(s *Stats) { s.AttemptFailures[kind]++ })
		last = Error{Kind: kind, Role: req.Role, Endpoint: ep.Name, URL: rep.redacted, Status: as.status,
			Attempts: n, Message: st.redact(msg)}
		if !kind.Retryable() || n > ep.Retries {
			return Response{}, ids, new(last)
		}
		wait := c.backoff(ep, n)
		if kind == KindRateLimited && as.retryAfter > wait {
			wait = as.retryAfter
		}
		if st.pool.hasFresh(tried) {
			wait = 0 // fail over at once to a healthy replica not tried yet
		}
		if time.Until(deadline) < wait {
			last.Message += fmt.Sprintf(" (next retry in %v would pass the total deadline)", wait.Round(time.Millisecond))
			return Response{}, ids, new(last)
		}
		c.stats.add(func(s *Stats) { s.RetriesByKind[kind]++ })
		tl.add(req.Role, func(r *RoleTally) { r.Retries[CauseOf(kind)]++ })
		if err := sleepCtx(total(), wait); err != nil {
			return Response{}, ids, ctxError(ctx, &last, n)
		}
	}
}

// ctxError turns the end of a context into an *Error: canceled when the
// caller's context ended, deadline when the total deadline passed.
func ctxError(parent context.Context, last *Error, attempts int) *Error {
	e := *last
	e.Attempts = attempts
	if errors.Is(parent.Err(), context.Canceled) {
		e.Kind, e.cause = KindCanceled, context.Canceled
	} else {
		e.Kind, e.cause = KindDeadline, context.DeadlineExceeded
	}
	return &e
}

// finish records counters and the trace of a request that did not hit the
// cache.
func (c *Client) finish(ctx context.Context, start time.Time, req Request, st *endpointState, model string, resp Response, err error) {
	tl := TallyFrom(ctx)
	if err != nil {
		k := KindOf(err)
		c.stats.add(func(s *Stats) { s.Failed++; s.Failures[k]++ })
		e, ok := err.(*Error)
		if !ok {
			e = &Error{Kind: k, Role: req.Role, Message: err.Error()}
		}
		tl.fail(req.Role, e)
	} else {
		empty := false
		for _, ch := range resp.Choices {
			if ch == "" {
				empty = true
			}
		}
		c.stats.succeeded(resp.PromptTokens, resp.CompletionTokens, empty, resp.Latency)
		tl.add(req.Role, func(r *RoleTally) {
			r.TokensIn += int64(resp.PromptTokens)
			r.TokensOut += int64(resp.CompletionTokens)
			r.Latency[LatencyBucket(resp.Latency)]++
		})
	}
	c.trace(start, req, st, model, resp, err)
}

func (c *Client) trace(start time.Time, req Request, st *endpointState, model string, resp Response, err error) {
	if c.cfg.Trace == nil {
		return
	}
	ev := TraceEvent{Time: start, Role: req.Role, Model: model, Latency: time.Since(start), Status: "ok",
		Attempts: resp.Attempts, Choices: len(resp.Choices), PromptTokens: resp.PromptTokens,
		CompletionTokens: resp.CompletionTokens, CacheKey: req.CacheKey, URL: resp.URL}
	if st != nil {
		ev.Endpoint = st.ep.Name
	}
	if resp.Cached {
		ev.Status, ev.Latency = "cached", resp.Latency
	}
	var e *Error
	if errors.As(err, &e) {
		ev.Status, ev.HTTPStatus, ev.Attempts, ev.URL, ev.Error = string(e.Kind), e.Status, e.Attempts, e.URL, e.Error()
	}
	c.cfg.Trace(ev)
}

// toResponse converts a reply, keeping raw text and stripping
// <think> blocks.
func (c *Client) toResponse(out wireResponse, model string, rep *replica, attempts int, start time.Time) Response {
	r := Response{PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens,
		Latency: time.Since(start), Attempts: attempts, ModelID: model, URL: rep.redacted}
	choices := orderedChoices(out.Choices)
	if n := len(choices); n > 0 {
		all := make([]string, 3*n) // one allocation for the three; each is capped at its length
		r.Raw, r.Choices, r.FinishReasons = all[:n:n], all[n:2*n:2*n], all[2*n:]
	}
	for i := range choices {
		ch := &choices[i]
		raw := ch.Message.Content
		if ch.Message.ReasoningContent != "" {
			raw = "<think>" + ch.Message.ReasoningContent + "</think>" + raw
		}
		r.Raw[i], r.Choices[i], r.FinishReasons[i] = raw, StripThink(raw), string(ch.FinishReason)
	}
	return r
}

// orderedChoices sorts choices by index (servers may answer out of order);
// choices already in order are returned as they are.
func orderedChoices(in []wireChoice) []wireChoice {
	if slices.IsSortedFunc(in, func(a, b wireChoice) int { return cmp.Compare(a.Index, b.Index) }) {
		return in
	}
	out := make([]wireChoice, len(in))
	copy(out, in)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Index < out[j-1].Index; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
