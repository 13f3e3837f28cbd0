package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/web"
	"mascot.dev/mascot/runner/chat"
)

// gate is a proxy in front of the fake vLLM that, once armed, lets a
// number of generation requests through and holds the rest until opened.
type gate struct {
	mu    sync.Mutex
	armed bool
	left  int
	open  chan struct{}
}

func (g *gate) arm(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.left, g.open = true, n, make(chan struct{})
}

func (g *gate) release() { close(g.open) }

func (g *gate) wait(ctx context.Context) {
	g.mu.Lock()
	if !g.armed || g.left > 0 {
		g.left--
		g.mu.Unlock()
		return
	}
	ch := g.open
	g.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

func gatedLLM(t *testing.T) (*gate, string) {
	t.Helper()
	fake := fakevllm.Start(t, fakevllm.Options{})
	target, err := url.Parse(strings.TrimSuffix(fake.URL(), "/v1"))
	must(t, err)
	rp := httputil.NewSingleHostReverseProxy(target)
	g := &gate{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			g.wait(r.Context())
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return g, srv.URL + "/v1"
}

// chatViewer serves the viewer with the chat page wired as mascot ui
// wires it (webChats over the real runner), rounds agent turns a message.
func chatViewer(t *testing.T, db string, rounds int) *httptest.Server {
	t.Helper()
	store, err := results.Open(db)
	must(t, err)
	t.Cleanup(func() { store.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	c := &cobra.Command{}
	c.SetErr(io.Discard)
	chats := &webChats{f: &chatFlags{runRefFlags: runRefFlags{db: db, runsDir: filepath.Join(t.TempDir(), "runs")}, rounds: rounds}, c: c,
		ctx: ctx, store: store, systems: map[string]*chat.System{}}
	h, err := web.NewHandler(store, web.Options{Chat: chats.open, Resample: -1})
	must(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); chats.close(); cancel() })
	return srv
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// TestChatPageStreams drives the chat page over HTTP against a real run:
// the reply's first turn reaches the client while the second is still
// being generated (the LLM is held until the client has read the first),
// the conversation is stored and shown in the viewer, and undo works.
func TestChatPageStreams(t *testing.T) {
	g, llmURL := gatedLLM(t)
	db, runID := chatFixture(t, llmURL)
	srv := chatViewer(t, db, 2)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	resp, err := client.Get(srv.URL + "/chat?run=" + runID)
	must(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfRE.FindSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("chat page: status %d, no form token:\n%s", resp.StatusCode, page)
	}
	token := string(m[1])

	g.arm(2) // round 1: Director and Speaker; round 2 waits
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	form := url.Values{"csrf": {token}, "run": {runID}, "message": {"My sister stopped talking to me."}, "action": {"say"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat", strings.NewReader(form.Encode()))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("no response while the second round was held (the page does not stream): %v", err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var seen strings.Builder
	for !strings.Contains(seen.String(), `<div class="turn">`) {
		line, err := br.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			t.Fatalf("the first agent turn never arrived before the second was generated (the page does not stream): %v\n%s", err, seen.String())
		}
	}
	g.release()
	rest, err := io.ReadAll(br)
	must(t, err)
	body := seen.String() + string(rest)
	if n := strings.Count(body, `<div class="turn">`); n != 2 {
		t.Errorf("%d agent turns streamed, want 2", n)
	}
	for _, want := range []string{"My sister stopped talking to me.", "Agent: <b>The", `id="chat-done"`, `id="episode-link"`} {
		if !strings.Contains(body, want) {
			t.Errorf("streamed page lacks %q", want)
		}
	}
	ep := regexp.MustCompile(`href="/episodes/(\d+)" id="episode-link"`).FindStringSubmatch(body)
	conv := regexp.MustCompile(`name="conv" value="([^"]+)"`).FindStringSubmatch(body)
	if ep == nil || conv == nil {
		t.Fatal("streamed page names no stored episode or conversation")
	}
	resp2, err := client.Get(srv.URL + "/episodes/" + ep[1])
	must(t, err)
	epPage, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if !strings.Contains(string(epPage), "My sister stopped talking to me.") || !strings.Contains(string(epPage), "mode chat") {
		t.Errorf("the viewer's episode page does not show the conversation:\n%s", epPage)
	}

	undo := url.Values{"csrf": {token}, "conv": {conv[1]}, "action": {"undo"}}
	resp3, err := client.PostForm(srv.URL+"/chat", undo)
	must(t, err)
	resp3.Body.Close()
	if resp3.StatusCode != http.StatusSeeOther {
		t.Fatalf("undo: status %d", resp3.StatusCode)
	}
	st, err := results.Open(db)
	must(t, err)
	defer st.Close()
	e, err := st.GetEpisode(context.Background(), atoi(t, ep[1]))
	must(t, err)
	if len(e.Turns) != 0 {
		t.Errorf("after undo the stored conversation has %d turns, want 0", len(e.Turns))
	}
	// Without the token the chat refuses to generate.
	form.Del("csrf")
	resp4, err := client.PostForm(srv.URL+"/chat", form)
	must(t, err)
	resp4.Body.Close()
	if resp4.StatusCode != http.StatusForbidden {
		t.Errorf("chat post without token: status %d, want 403", resp4.StatusCode)
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}
