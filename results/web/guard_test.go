package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// csrfOf returns the same-site token a page embeds in its forms.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("page embeds no csrf token")
	}
	return m[1]
}

// TestWriteGuard posts hostile ratings (forged Origin, cross-site fetch
// metadata, a foreign Host as in DNS rebinding, a missing or wrong token,
// a 5 MB rater id, an over-long one, control characters) and checks each
// status and that none was stored; a well-formed post from the page is
// stored.
func TestWriteGuard(t *testing.T) {
	srv, st := newTestServer(t)
	_, body := get(t, srv, "/rate?run=run-a&rater=ann&context=conv-002")
	token := csrfOf(t, body)
	eps := regexp.MustCompile(`name="ep" value="(\d+)"`).FindAllStringSubmatch(body, -1)
	good := func() url.Values {
		v := url.Values{"run": {"run-a"}, "rater": {"ann"}, "context": {"conv-002"}, "choice": {"0"}, "csrf": {token}}
		for _, m := range eps {
			v.Add("ep", m[1])
		}
		return v
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	cases := []struct {
		name   string
		form   func(url.Values)
		header map[string]string
		host   string
		want   int
	}{
		{"forged origin", nil, map[string]string{"Origin": "http://evil.example"}, "", http.StatusForbidden},
		{"cross-site fetch", nil, map[string]string{"Sec-Fetch-Site": "cross-site"}, "", http.StatusForbidden},
		{"rebinding host", nil, map[string]string{"Origin": "http://evil.example:1234"}, "evil.example:1234", http.StatusForbidden},
		{"foreign host, no origin", nil, nil, "evil.example", http.StatusForbidden},
		{"no token", func(v url.Values) { v.Del("csrf") }, nil, "", http.StatusForbidden},
		{"wrong token", func(v url.Values) { v.Set("csrf", otherFirst(token)) }, nil, "", http.StatusForbidden},
		{"5 MB rater id", func(v url.Values) { v.Set("rater", strings.Repeat("r", 5<<20)) }, nil, "", http.StatusRequestEntityTooLarge},
		{"65-byte rater id", func(v url.Values) { v.Set("rater", strings.Repeat("r", 65)) }, nil, "", http.StatusBadRequest},
		{"control character", func(v url.Values) { v.Set("rater", "ann\x00") }, nil, "", http.StatusBadRequest},
		{"same origin", nil, map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}, "", http.StatusSeeOther},
		{"localhost name", nil, nil, "localhost:" + host[strings.LastIndex(host, ":")+1:], http.StatusSeeOther},
	}
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	stored := 0
	for _, c := range cases {
		v := good()
		if c.form != nil {
			c.form(v)
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/rate", strings.NewReader(v.Encode()))
		must(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, h := range c.header {
			req.Header.Set(k, h)
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := client.Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
		if c.want == http.StatusSeeOther {
			stored++
		}
	}
	prefs, err := st.HumanPreferences(context.Background(), "run-a")
	must(t, err)
	if len(prefs) != stored {
		t.Errorf("%d preferences stored, want %d (the accepted posts only)", len(prefs), stored)
	}
	// A GET with a foreign Host (DNS rebinding reading pages) is refused too.
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	must(t, err)
	req.Host = "evil.example"
	resp, err := client.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET with a foreign Host: status %d, want 403", resp.StatusCode)
	}
}

// otherFirst returns token with its first character changed (so it never
// equals the token, whatever random character the token starts with).
func otherFirst(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
