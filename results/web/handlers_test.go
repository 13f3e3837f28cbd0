package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mascot.dev/mascot/results"
)

// newTestServer seeds a store and serves the viewer on a real loopback
// HTTP server.
func newTestServer(t *testing.T) (*httptest.Server, *results.Store) {
	t.Helper()
	st := openStore(t)
	seed(t, st)
	h, err := NewHandler(st, Options{Resample: 200, PageSize: 4, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, st
}

// get fetches a path and returns status and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(b)
}

func firstEpisode(t *testing.T, st *results.Store, runID, system string) int64 {
	t.Helper()
	p, err := st.EpisodesPage(context.Background(), results.EpisodeQuery{RunID: runID, System: system, Limit: 1})
	must(t, err)
	if len(p.Episodes) == 0 {
		t.Fatalf("no episodes in %s", runID)
	}
	return p.Episodes[0].ID
}

func TestPages(t *testing.T) {
	srv, st := newTestServer(t)
	ep := firstEpisode(t, st, "run-a", "mascot")
	cases := []struct {
		path string
		want []string
		not  []string
	}{
		{"/", []string{"paper-esconv", "ablation-no-director", "live-run", "temp-sweep", "llm_calls</span>=42",
			`http-equiv="refresh"`, "status-running"}, []string{"temp=0.2"}},
		{"/?status=done&sort=name&asc=1", []string{"ablation-no-director", "paper-esconv"}, []string{"live-run", "refresh"}},
		{"/?q=ablation", []string{"ablation-no-director"}, []string{"paper-esconv</a>"}},
		{"/?tag=ablation", []string{"ablation-no-director"}, []string{"paper-esconv</a>"}},
		{"/?all=1", []string{"temp=0.2", "temp=0.8"}, nil},
		{"/runs/run-a", []string{"generate", "dialogue", "judge", "tokens_out", "9000", `&#34;model&#34;: &#34;gpt-4o&#34;`,
			"conversations (6)", "mascot run paper/esconv"}, []string{`http-equiv="refresh"`}},
		{"/runs/run-live", []string{`http-equiv="refresh"`, "32.5%", "status-running"}, nil},
		{"/runs/run-a/episodes", []string{"conv-001", "conv-002", `id="next"`}, nil},
		{"/runs/run-a/episodes?system=zero-shot", []string{"zero-shot"}, []string{"<td>mascot</td>"}},
		{"/runs/run-a/episodes?q=" + url.QueryEscape("(conv-003)"), []string{"conv-003"}, []string{"conv-001"}},
		{"/episodes/" + strconv.FormatInt(ep, 10) + "?run=run-a", []string{"I lost my job last week", "The Anchor",
			"Action: <b>validate feelings</b>", "Tone: <b>warm</b>", "User", "Empathetic Support Quality",
			"acknowledges the loss before offering help", "Fidelity", "the group stays on the seeker&#39;s problem",
			"esconv-5"}, nil},
		{"/runs/run-a/candidates", []string{"ctx-7", "I hear how heavy this is.", "Have you tried yoga?", "100.0",
			"rationale for candidate 1", "75.0"}, nil},
		{"/runs/run-a/training", []string{"train-grpo", "<svg", `class="plot plot-lines"`, "loss", "reward std", "KL", "grad norm",
			"learning rate", "clip_frac", "20 steps",
			// the held-out evaluation under each training stage
			"<th>heldout.reward_before</th><td>0.2500</td>", "<th>heldout.reward_after</th><td>0.7500</td>",
			"<th>heldout.reward_delta_ci</th><td>[0.1250, 0.8750]</td>", "<th>held-out prompts</th><td>7</td>",
			"persona_rm", "<th>heldout.accuracy</th><td>0.8000</td>", "<th>heldout.loss</th><td>0.4000</td>",
			"<th>held-out pairs</th><td>15</td>", "epoch 3 (step 12)</th><td>accuracy 0.8000 · loss 0.4000",
			"persona_rm: heldout_accuracy",
			// a DPO policy and a pretraining: before and after
			"<th>heldout.accuracy_before</th><td>0.0000</td>", "<th>heldout.accuracy</th><td>0.8750</td>",
			"<th>heldout.loss_before</th><td>0.6931</td>", "<th>held-out pairs</th><td>8</td>",
			"<th>heldout.loss_before</th><td>5.5000</td>", "<th>heldout.loss</th><td>2.5000</td>",
			// perplexities: exp of the losses, derived by the store
			"<th>heldout.perplexity_before</th><td>244.6919</td>", "<th>heldout.perplexity</th><td>12.1825</td>",
			"<th>held-out examples</th><td>4</td>", "<th>held-out tokens</th><td>252</td>"}, nil},
		{"/runs/run-b/training", []string{"logged no training steps"}, nil},
		{"/runs/run-a/report", []string{"Collective criteria", "Fidelity", "Overall", "mascot", "zero-shot", "±",
			"Win rates", "gpt-4o"}, nil},
		{"/runs/run-a/report?split=none", []string{"all"}, nil},
		{"/compare", []string{"run A", "paper-esconv"}, []string{"changed most"}},
		{"/compare?a=run-a&b=run-b", []string{"Compare paper-esconv with ablation-no-director", "Fidelity", "d<sub>z</sub>",
			"llm_calls", "Conversations that changed most", "conv-00"}, nil},
		{"/runs/sweep/sweep", []string{"Overall vs temperature", "<svg", "temp=0.2", "temp=0.8"}, nil},
		{"/rate", []string{"rater id", "paper-esconv"}, nil},
		{"/rate?run=run-a&rater=ann", []string{"Conversation A", "Conversation B", "I lost my job", `name="ep"`,
			`id="situation"`, "situation:</strong> laid off after ten years at the plant (conv-00"}, []string{
			"zero-shot", "mascot</td>", "mascot</b>", ">mascot<br"}},
		{"/static/style.css", []string{"font:"}, nil},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			code, body := get(t, srv, c.path)
			if code != http.StatusOK {
				t.Fatalf("status %d, body:\n%s", code, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(body, w) {
					t.Errorf("unexpected %q", w)
				}
			}
			if t.Failed() {
				t.Logf("body:\n%s", body)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	srv, _ := newTestServer(t)
	for path, want := range map[string]int{
		"/runs/nope":                       404,
		"/runs/nope/episodes":              404,
		"/runs/nope/report":                404,
		"/runs/nope/training":              404,
		"/runs/nope/candidates":            404,
		"/runs/run-a/sweep":                404, // not a sweep
		"/runs/run-a/candidates?context=x": 404,
		"/episodes/999999":                 404,
		"/episodes/abc":                    404,
		"/nowhere":                         404,
		"/compare?a=run-a&b=nope":          404,
		"/rate?run=nope":                   404,
		"/rate?run=run-a&context=conv-999": 404,
		"/?sort=bogus":                     400,
		"/runs/run-a/report?split=bogus":   400,
		"/runs/run-a/episodes?after=!!":    400,
	} {
		code, body := get(t, srv, path)
		if code != want {
			t.Errorf("%s: status %d, want %d\n%s", path, code, want, body)
		}
		if !strings.Contains(body, `id="error"`) {
			t.Errorf("%s: no error message in the page", path)
		}
	}
	resp, err := srv.Client().Post(srv.URL+"/runs/run-a", "text/plain", nil)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /runs/run-a: %d, want 405", resp.StatusCode)
	}
}

func TestPaging(t *testing.T) {
	srv, _ := newTestServer(t)
	seen := map[string]bool{}
	path := "/runs/run-a/episodes"
	next := regexp.MustCompile(`id="next" href="([^"]+)"`)
	row := regexp.MustCompile(`/episodes/(\d+)\?run=run-a`)
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		code, body := get(t, srv, path)
		if code != 200 {
			t.Fatalf("%s: %d", path, code)
		}
		for _, m := range row.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Fatalf("episode %s on two pages", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := next.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(seen) != 6 {
		t.Fatalf("saw %d episodes over the pages, want 6", len(seen))
	}
}

func TestRateStoresPreference(t *testing.T) {
	srv, st := newTestServer(t)
	ctx := context.Background()
	code, body := get(t, srv, "/rate?run=run-a&rater=ann&context=conv-002")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	eps := regexp.MustCompile(`name="ep" value="(\d+)"`).FindAllStringSubmatch(body, -1)
	if len(eps) != 2 {
		t.Fatalf("want 2 conversations shown, got %d", len(eps))
	}
	form := url.Values{"run": {"run-a"}, "rater": {"ann"}, "context": {"conv-002"}, "choice": {"1"}, "shown": {"1"},
		"csrf": {csrfOf(t, body)}}
	for _, m := range eps {
		form.Add("ep", m[1])
	}
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.PostForm(srv.URL+"/rate", form)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "done=") {
		t.Fatalf("POST /rate: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	prefs, err := st.HumanPreferences(ctx, "run-a")
	must(t, err)
	if len(prefs) != 1 {
		t.Fatalf("%d preferences stored, want 1", len(prefs))
	}
	p := prefs[0]
	second, _ := strconv.ParseInt(eps[1][1], 10, 64)
	e, err := st.GetEpisode(ctx, second)
	must(t, err)
	if p.RaterID != "ann" || p.ContextID != "conv-002" || p.Choice != e.System || len(p.Systems) != 2 ||
		p.EpisodeIDs[1] != second || p.Time.IsZero() || !strings.HasPrefix(p.Note, "seconds=") {
		t.Fatalf("stored %+v; want choice %s (the second conversation shown)", p, e.System)
	}
	// The report's win rates now include the human source.
	_, body = get(t, srv, "/runs/run-a/report")
	if !strings.Contains(body, "<td>human</td>") {
		t.Error("report does not show human win rates")
	}
	// A tie, and invalid submissions.
	form.Set("choice", "tie")
	resp, err = client.PostForm(srv.URL+"/rate", form)
	must(t, err)
	resp.Body.Close()
	for name, mut := range map[string]func(v url.Values){
		"no rater":   func(v url.Values) { v.Set("rater", " ") },
		"bad choice": func(v url.Values) { v.Set("choice", "7") },
		"foreign ep": func(v url.Values) { v.Set("ep", "999") },
		"wrong ctx":  func(v url.Values) { v.Set("context", "conv-001") },
		"one shown":  func(v url.Values) { v["ep"] = v["ep"][:1] },
	} {
		v := url.Values{}
		for k, vs := range form {
			v[k] = append([]string(nil), vs...)
		}
		mut(v)
		resp, err := client.PostForm(srv.URL+"/rate", v)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, resp.StatusCode)
		}
	}
	prefs, err = st.HumanPreferences(ctx, "run-a")
	must(t, err)
	if len(prefs) != 2 || prefs[1].Choice != results.Tie {
		t.Fatalf("after a tie and 5 invalid posts: %d preferences, last %+v", len(prefs), prefs[len(prefs)-1])
	}
}

func TestServe(t *testing.T) {
	path := openStorePath(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(ctx, Options{DB: path, Addr: "127.0.0.1:0", Ready: func(a string) { addrc <- a }})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("bound %s, want loopback", addr)
	}
	resp, err := http.Get("http://" + addr + "/")
	must(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "paper-esconv") {
		t.Fatalf("GET /: %d\n%s", resp.StatusCode, b)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
}

// openStorePath seeds a database file, closes it and returns its path.
func openStorePath(t *testing.T) string {
	t.Helper()
	st := openStore(t)
	seed(t, st)
	p := st.Path()
	must(t, st.Close())
	return p
}

func TestDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.Addr != "127.0.0.1:8080" || o.DB != results.DefaultPath || o.PageSize != 50 {
		t.Fatalf("defaults %+v", o)
	}
	if _, err := NewHandler(nil, Options{}); err == nil {
		t.Fatal("NewHandler(nil) succeeded")
	}
}

// TestTablesNotReadyAnswerComputing: with tables that take longer than the
// viewer's patience, the report and compare pages answer at once with 202
// and a page that reloads itself, the computation runs on, and a reload
// after it ends shows the tables.
func TestTablesNotReadyAnswerComputing(t *testing.T) {
	st := openStore(t)
	seed(t, st)
	h, err := NewHandler(st, Options{Resample: 200, Patience: time.Nanosecond})
	must(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, c := range []struct{ path, want string }{
		{"/runs/run-a/report", "Collective criteria"},
		{"/compare?a=run-a&b=run-b", "d<sub>z</sub>"},
	} {
		resp, err := srv.Client().Get(srv.URL + c.path)
		must(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must(t, err)
		if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Retry-After") != "1" ||
			!strings.Contains(string(b), `id="computing"`) || !strings.Contains(string(b), `http-equiv="refresh" content="1"`) {
			t.Fatalf("%s first answer: %d %q\n%s", c.path, resp.StatusCode, resp.Header.Get("Retry-After"), b)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body := get(t, srv, c.path)
			if code == http.StatusOK {
				if !strings.Contains(body, c.want) {
					t.Errorf("%s once ready lacks %q:\n%s", c.path, c.want, body)
				}
				break
			}
			if code != http.StatusAccepted || time.Now().After(deadline) {
				t.Fatalf("%s: %d while waiting for the tables", c.path, code)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
