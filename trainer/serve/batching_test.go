package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// arrivals makes requests join the engine at chosen steps: before step k
// (counted from 1) it starts every request of at[k] and holds the engine
// until they are queued, so they are admitted at exactly that boundary.
// It returns a function that waits for every request and their results.
func arrivals(t *testing.T, s *Server, url string, at map[int][]map[string]any) func() map[string]chatResp {
	t.Helper()
	var mu sync.Mutex
	res := map[string]chatResp{}
	var wg sync.WaitGroup
	fire := func(body map[string]any) {
		name := body["user"].(string)
		wg.Go(func() {
			r, err := tryChat(url, body)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			mu.Lock()
			res[name] = r
			mu.Unlock()
		})
	}
	step := 0
	s.eng.beforeStep = func() {
		step++
		bodies := at[step]
		if len(bodies) == 0 {
			return
		}
		want := s.eng.waiting() + len(bodies)
		for _, b := range bodies {
			fire(b)
		}
		deadline := time.Now().Add(20 * time.Second)
		for s.eng.waiting() < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	var first []map[string]any
	for k, bs := range at {
		if k <= 0 {
			first = append(first, bs...)
		}
	}
	for _, b := range first {
		fire(b)
	}
	return func() map[string]chatResp {
		wg.Wait()
		s.eng.beforeStep = nil
		if last := maxKey(at); step < last {
			t.Fatalf("the engine ran %d steps, so the requests due at step %d were never sent", step, last)
		}
		return res
	}
}

func maxKey(at map[int][]map[string]any) int {
	m := 0
	for k := range at {
		m = max(m, k)
	}
	return m
}

// tryChat is chat for goroutines other than the test's.
func tryChat(url string, body map[string]any) (chatResp, error) {
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		return chatResp{}, err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var r chatResp
	if resp.StatusCode != http.StatusOK {
		return r, fmt.Errorf("chat: %d %s", resp.StatusCode, out)
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("chat response %s: %v", out, err)
	}
	return r, nil
}

// sameChoices says how two responses to one request differ, if they do:
// text, finish reason, every token's log-prob and top log-probs, compared
// as the exact numbers the server wrote.
func sameChoices(a, b chatResp) error {
	if len(a.Choices) != len(b.Choices) {
		return fmt.Errorf("%d choices vs %d", len(a.Choices), len(b.Choices))
	}
	for i := range a.Choices {
		x, y := a.Choices[i], b.Choices[i]
		if x.Message.Content != y.Message.Content || x.FinishReason != y.FinishReason {
			return fmt.Errorf("choice %d: %q (%s) vs %q (%s)", i, x.Message.Content, x.FinishReason, y.Message.Content, y.FinishReason)
		}
		xj, _ := json.Marshal(x.Logprobs)
		yj, _ := json.Marshal(y.Logprobs)
		if string(xj) != string(yj) {
			return fmt.Errorf("choice %d: log-probs differ:\n%s\n%s", i, xj, yj)
		}
	}
	return nil
}

// probe is the request whose output must not depend on its company.
func probe() map[string]any {
	return map[string]any{"model": "tiny", "user": "probe", "messages": msgs("How was your day? Tell me everything."),
		"temperature": 0.9, "top_p": 0.95, "seed": 4242, "max_tokens": 24, "logprobs": true, "top_logprobs": 3,
		"chat_template_kwargs": map[string]any{"enable_thinking": false}}
}

// others are seven requests of different prompt lengths, token budgets,
// sampling settings and models (two on an adapter), one with n = 2.
func others() []map[string]any {
	var bs []map[string]any
	for i := range 7 {
		b := map[string]any{"model": "tiny", "user": fmt.Sprintf("other%d", i),
			"messages":    msgs(strings.Repeat(fmt.Sprintf("word%d ", i), 1+9*i)),
			"temperature": 0.5 + 0.1*float64(i), "seed": 100 + i, "max_tokens": 6 + 5*i, "logprobs": true}
		if i%3 == 1 {
			b["model"] = "style"
		}
		if i == 4 {
			b["n"] = 2
		}
		if i == 6 {
			b["temperature"] = 0
		}
		bs = append(bs, b)
	}
	return bs
}

// TestBatchInvariantTokensAndLogprobs sends a seeded sampling request
// alone, then beside seven others that arrive before it, with it, and
// while it decodes, on a server that prefills in blocks of 3 tokens (the
// alone run prefills in one block): its text, log-probs and top log-probs
// are the same to the last digit, and so are the others' against their
// own alone runs.
func TestBatchInvariantTokensAndLogprobs(t *testing.T) {
	adir := adapterDir(t, 5)
	_, alone := startServer(t, Options{Adapters: map[string]string{"style": adir}})
	want := map[string]chatResp{"probe": chat(t, alone, probe())}
	for _, b := range others() {
		want[b["user"].(string)] = chat(t, alone, b)
	}
	s, url := startServer(t, Options{Adapters: map[string]string{"style": adir}, MaxBatch: 9, PrefillChunk: 3})
	o := others()
	var peak int
	s.eng.observe = func(n int) { peak = max(peak, n) }
	wait := arrivals(t, s, url, map[int][]map[string]any{
		0: {o[0], o[1]}, 2: {probe(), o[2]}, 5: {o[3]}, 9: {o[4]}, 14: {o[5]}, 20: {o[6]},
	})
	got := wait()
	for name, w := range want {
		if err := sameChoices(got[name], w); err != nil {
			t.Errorf("%s beside the others vs alone: %v", name, err)
		}
	}
	if peak < 5 {
		t.Errorf("at most %d sequences ran together; the test meant them to overlap", peak)
	}
}

// TestRequestArrivingMidDecodeMatchesAlone: a request that joins while
// another has been decoding for six steps gets its alone output, and so
// does the one already decoding; they do share passes.
func TestRequestArrivingMidDecodeMatchesAlone(t *testing.T) {
	_, alone := startServer(t, Options{})
	first := map[string]any{"model": "tiny", "user": "first", "messages": msgs("first request"), "temperature": 1,
		"seed": 3, "max_tokens": 30, "logprobs": true} // seed 3 runs all 30 tokens on the test model
	late := map[string]any{"model": "tiny", "user": "late", "messages": msgs("a later, longer request that joins mid-way"),
		"temperature": 1, "seed": 2, "max_tokens": 12, "logprobs": true}
	wantFirst, wantLate := chat(t, alone, first), chat(t, alone, late)
	s, url := startServer(t, Options{})
	steps := stepSizes(s, nil)
	got := arrivals(t, s, url, map[int][]map[string]any{0: {first}, 7: {late}})()
	if err := sameChoices(got["first"], wantFirst); err != nil {
		t.Errorf("first: %v", err)
	}
	if err := sameChoices(got["late"], wantLate); err != nil {
		t.Errorf("late: %v", err)
	}
	if sizes := steps(); len(sizes) < 8 || sizes[5] != 1 || sizes[6] != 2 {
		t.Errorf("sequences per step %v: want one for six steps, then two", sizes)
	}
}

// TestLongPromptDoesNotStallDecoding: while a 400-token prompt is
// prefilled in blocks of 8, the request already decoding gets a token at
// every step, and the prompt takes ⌈400/8⌉ steps.
func TestLongPromptDoesNotStallDecoding(t *testing.T) {
	s, url := startServer(t, Options{PrefillChunk: 8})
	long := map[string]any{"model": "tiny", "user": "long", "prompt": make([]int, 400), "max_tokens": 2, "temperature": 0}
	const arrive = 6 // the decoding request's prompt (under 24 tokens) is in by then
	var mu sync.Mutex
	type snap struct{ gen, prompt int64 }
	var snaps []snap
	s.eng.beforeStep = func() {
		mu.Lock()
		snaps = append(snaps, snap{s.eng.genTok.Load(), s.eng.promptTok.Load()})
		n := len(snaps)
		mu.Unlock()
		if n == arrive {
			go func() {
				b, _ := json.Marshal(long)
				if resp, err := http.Post(url+"/completions", "application/json", bytes.NewReader(b)); err == nil {
					resp.Body.Close()
				}
			}()
			for s.eng.waiting() == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	r := chat(t, url, map[string]any{"model": "tiny", "messages": msgs("decoding"), "max_tokens": 120, "temperature": 0})
	if r.Usage.CompletionTokens != 120 {
		t.Fatalf("the decoding request stopped after %d tokens; it must outlast the long prefill (choose another prompt)", r.Usage.CompletionTokens)
	}
	waitFor(t, func() bool { return s.eng.running.Load() == 0 })
	s.eng.beforeStep = nil
	mu.Lock()
	defer mu.Unlock()
	done := -1
	for i, sn := range snaps {
		if sn.prompt >= int64(r.Usage.PromptTokens+400) {
			done = i
			break
		}
	}
	if done < 0 {
		t.Fatal("the long prompt was never prefilled")
	}
	// snaps[i] was taken before step i+1; the long prompt was admitted
	// before step arrive and its last block ran in step done.
	if snaps[arrive-1].prompt != int64(r.Usage.PromptTokens) {
		t.Fatalf("before step %d, %d prompt tokens were in, want the decoding request's %d", arrive, snaps[arrive-1].prompt, r.Usage.PromptTokens)
	}
	steps := done - (arrive - 1)
	if steps != 50 {
		t.Errorf("the long prompt took %d steps, want 400/8 = 50", steps)
	}
	if gen := snaps[done].gen - snaps[arrive-1].gen; gen != int64(steps) {
		t.Errorf("the decoding request got %d tokens during the %d steps of the long prefill, want one per step", gen, steps)
	}
}

// TestCancelFreesSlotAtOnce: with room for one sequence, a client that
// goes away mid-decode frees the slot before the next step (no token is
// generated for it after), the queued request then runs, and a queued
// request whose client goes away leaves the queue while the engine is
// held.
func TestCancelFreesSlotAtOnce(t *testing.T) {
	s, url := startServer(t, Options{MaxBatch: 1})
	gate := make(chan struct{})
	var released sync.Once
	t.Cleanup(func() { released.Do(func() { close(gate) }) })
	hold := make(chan struct{}, 1)
	var steps int
	s.eng.beforeStep = func() {
		steps++
		if steps == 5 {
			hold <- struct{}{}
			<-gate
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"model":"tiny","messages":[{"role":"user","content":"long"}],"max_tokens":1000,"temperature":1,"seed":3,"stream":true}`
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-hold // the engine is held before step 5
	queuedCtx, cancelQueued := context.WithCancel(context.Background())
	queuedErr := make(chan error, 1)
	go func() {
		plain := strings.Replace(body, `"stream":true`, `"stream":false`, 1)
		qreq, _ := http.NewRequestWithContext(queuedCtx, "POST", url+"/chat/completions", strings.NewReader(plain))
		qreq.Header.Set("Content-Type", "application/json")
		r, err := http.DefaultClient.Do(qreq)
		if err == nil {
			r.Body.Close()
		}
		queuedErr <- err
	}()
	waitFor(t, func() bool { return s.eng.waiting() == 1 })
	cancelQueued()
	waitFor(t, func() bool { return s.eng.waiting() == 0 }) // while the engine is still held
	<-queuedErr
	if s.eng.gone.Load() != 1 {
		t.Fatalf("%d requests seen gone, want the queued one", s.eng.gone.Load())
	}
	var next chatResp
	nextDone := make(chan struct{})
	go func() {
		var err error
		if next, err = tryChat(url, map[string]any{"model": "tiny", "messages": msgs("next"), "max_tokens": 5, "temperature": 0}); err != nil {
			t.Error(err)
		}
		close(nextDone)
	}()
	waitFor(t, func() bool { return s.eng.waiting() == 1 })
	gen := s.eng.genTok.Load()
	cancel()
	waitFor(t, func() bool { return s.eng.gone.Load() == 2 }) // the server saw the client go
	released.Do(func() { close(gate) })
	<-nextDone
	if got := s.eng.genTok.Load() - gen; got != int64(next.Usage.CompletionTokens) {
		t.Errorf("%d tokens generated after the cancel, want only the next request's %d", got, next.Usage.CompletionTokens)
	}
	if s.eng.running.Load() != 0 || s.eng.waiting() != 0 {
		t.Errorf("running %d waiting %d after both ended", s.eng.running.Load(), s.eng.waiting())
	}
}

// TestPassesOfTwoBasesKeepTheirLogits: a request still decoding on the
// base that LoadModel replaced shares its steps with a request on the new
// base, one pass each; both get their alone outputs (a step that let one
// pass's logits overwrite the other's fails it).
func TestPassesOfTwoBasesKeepTheirLogits(t *testing.T) {
	dir := randomModelDir(t, 99)
	if err := WriteByteTokenizerMarker(dir); err != nil {
		t.Fatal(err)
	}
	old := map[string]any{"model": "tiny", "user": "old", "messages": msgs("first request"), "temperature": 1,
		"seed": 3, "max_tokens": 30, "logprobs": true} // seed 3 runs all 30 tokens on the test model
	fresh := map[string]any{"model": "tiny", "user": "new", "messages": msgs("on the new base"), "temperature": 1,
		"seed": 5, "max_tokens": 12, "logprobs": true}
	_, aloneOld := startServer(t, Options{})
	wantOld := chat(t, aloneOld, old)
	sNew, aloneNew := startServer(t, Options{})
	if err := sNew.LoadModel(dir); err != nil {
		t.Fatal(err)
	}
	wantNew := chat(t, aloneNew, fresh)

	s, url := startServer(t, Options{})
	steps := stepSizes(s, func(step int) {
		if step == 6 { // "old" was admitted on the first base
			if err := s.LoadModel(dir); err != nil {
				t.Error(err)
			}
		}
	})
	got := arrivals(t, s, url, map[int][]map[string]any{0: {old}, 7: {fresh}})()
	if err := sameChoices(got["old"], wantOld); err != nil {
		t.Errorf("old base: %v", err)
	}
	if err := sameChoices(got["new"], wantNew); err != nil {
		t.Errorf("new base: %v", err)
	}
	if sizes := steps(); len(sizes) < 10 || sizes[8] != 2 {
		t.Errorf("sequences per step %v: want the two requests together from the eighth step", sizes)
	}
}
