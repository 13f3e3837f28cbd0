package llm

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
	"mascot.dev/mascot/internal/httpguard/guardtest"
)

// TestGatewayRefusesForgedRequests: the run's LLM gateway for plugins sits
// behind the shared request guard: a DNS-rebinding Host and a cross-site
// request are refused before the scope is even read, while a plugin's
// request with its scope is forwarded.
func TestGatewayRefusesForgedRequests(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{})
	c := newTestClient(t, nil, s.URL())
	g, err := StartGateway(c)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	token, release := g.Scope(context.Background(), "unit")
	defer release()
	url := g.BaseURL("main", "judge") + "/chat/completions"
	port := url[strings.LastIndex(g.base, ":")+1:]
	port = port[:strings.Index(port, "/")]
	body := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":4}`
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"rebinding Host", map[string]string{"Host": "evil.example:" + port, ScopeHeader: ItemScope(token, "a")}, 403},
		{"cross-site text/plain", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain", ScopeHeader: ItemScope(token, "a")}, 403},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site", ScopeHeader: ItemScope(token, "a")}, 403},
		{"no scope", nil, 400},
		{"the plugin's request", map[string]string{ScopeHeader: ItemScope(token, "a")}, 200},
	} {
		code, _, err := guardtest.Send(context.Background(), http.MethodPost, url, body, c.headers)
		if err != nil {
			t.Fatal(err)
		}
		if code != c.want {
			t.Errorf("%s: %d, want %d", c.name, code, c.want)
		}
	}
}
