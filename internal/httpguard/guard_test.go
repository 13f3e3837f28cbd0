package httpguard

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBoundHosts: a server answers its own address (and localhost for a
// loopback one; any IP literal for one on every interface), never another
// name.
func TestBoundHosts(t *testing.T) {
	for _, c := range []struct {
		requested, bound string
		want             map[string]bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", map[string]bool{"127.0.0.1:8080": true, "localhost:8080": true,
			"LOCALHOST:8080": true, "127.0.0.1:9090": false, "evil.example:8080": false, "": false, "10.0.0.5:8080": false}},
		{"localhost:0", "127.0.0.1:43210", map[string]bool{"localhost:43210": true, "127.0.0.1:43210": true,
			"evil.example:43210": false}},
		{"0.0.0.0:8080", "0.0.0.0:8080", map[string]bool{"10.0.0.5:8080": true, "[fe80::1]:8080": true,
			"localhost:8080": true, "10.0.0.5:9090": false, "evil.example:8080": false}},
	} {
		g := New(Options{Hosts: BoundHosts(c.requested, c.bound)})
		for host, want := range c.want {
			if got := g.HostAllowed(host); got != want {
				t.Errorf("bound %s: host %q allowed=%v, want %v", c.bound, host, got, want)
			}
		}
	}
}

// TestGuardRefusesForgedRequests sends each forged request to a real
// loopback server behind the API guard (token, every method checked) and to
// one behind the page guard (no token, unsafe methods only), and checks
// which reach the handler.
func TestGuardRefusesForgedRequests(t *testing.T) {
	reached := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++; w.WriteHeader(http.StatusNoContent) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	api := httptest.NewUnstartedServer(New(Options{Hosts: BoundHosts(host, host), AllMethods: true, Token: "tok",
		Open: func(r *http.Request) bool { return r.URL.Path == "/health" }}).Wrap(h))
	api.Listener.Close()
	api.Listener = ln
	api.Start()
	defer api.Close()
	page := httptest.NewServer(New(Options{}).Wrap(h))
	defer page.Close()

	cases := []struct {
		name    string
		srv     *httptest.Server
		method  string
		path    string
		host    string
		headers map[string]string
		want    int
	}{
		{"api: own client", api, "POST", "/v1/x", "", map[string]string{"Authorization": "Bearer tok"}, 204},
		{"api: health needs no token", api, "GET", "/health", "", nil, 204},
		{"api: no token", api, "POST", "/v1/x", "", nil, 401},
		{"api: wrong token", api, "POST", "/v1/x", "", map[string]string{"Authorization": "Bearer tik"}, 401},
		{"api: text/plain POST from another site", api, "POST", "/v1/x", "",
			map[string]string{"Authorization": "Bearer tok", "Origin": "http://evil.example", "Content-Type": "text/plain"}, 403},
		{"api: cross-site GET", api, "GET", "/v1/models", "",
			map[string]string{"Authorization": "Bearer tok", "Sec-Fetch-Site": "cross-site"}, 403},
		{"api: rebinding Host", api, "GET", "/health", "evil.example:" + host[strings.LastIndex(host, ":")+1:], nil, 403},
		{"api: localhost names the bound port", api, "POST", "/v1/x", "localhost:" + host[strings.LastIndex(host, ":")+1:],
			map[string]string{"Authorization": "Bearer tok"}, 204},
		{"page: link from another site", page, "GET", "/", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 204},
		{"page: form from another site", page, "POST", "/", "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"page: rebinding Host", page, "GET", "/", "evil.example", nil, 403},
		{"page: same origin", page, "POST", "/", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, 204},
	}
	for _, c := range cases {
		req, err := http.NewRequest(c.method, c.srv.URL+c.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		if c.host != "" {
			req.Host = c.host
		}
		before := reached
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
		if got := reached > before; got != (c.want == 204) {
			t.Errorf("%s: handler reached=%v", c.name, got)
		}
	}
}
