//go:build linux

package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/internal/httpguard/guardtest"
)

// send makes one request with the given headers (Host among them) and
// returns its status and body.
func send(t *testing.T, method, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	code, b, err := guardtest.Send(context.Background(), method, url, body, headers)
	if err != nil {
		t.Fatal(err)
	}
	return code, b
}

// TestServeRefusesForgedRequests forges, without a browser, what a web page
// could send to `mascot serve` on loopback (the server run as its own
// process): a text/plain POST from another site to unload the adapter, the
// same with the real token, a DNS-rebinding Host, requests without the
// token; and checks that each is refused and the adapter is still served,
// that /v1/models shows no absolute path, that loading from a missing path
// and from a folder holding no adapter answer the same words without the
// path, and that adapter updates are off (403) on a server started without
// --allow-adapter-updates.
func TestServeRefusesForgedRequests(t *testing.T) {
	ad := adapterDir(t, 5)
	const key = "s3cret-token"
	_, url, _ := startServeProcess(t, hostileRSSLimitKB, []string{"MASCOT_TEST_SERVE_KEY=" + key},
		"--lora", "speaker="+ad, "--api-key-env", "MASCOT_TEST_SERVE_KEY", "--allow-adapter-updates")
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/v1")]
	auth := "Bearer " + key
	unload := `{"lora_name":"speaker"}`
	for _, c := range []struct {
		name    string
		method  string
		path    string
		body    string
		headers map[string]string
		want    int
	}{
		{"text/plain unload from another site", "POST", "/unload_lora_adapter", unload,
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403},
		{"cross-site unload with the token", "POST", "/unload_lora_adapter", unload,
			map[string]string{"Origin": "http://evil.example", "Authorization": auth}, 403},
		{"cross-site fetch metadata", "POST", "/unload_lora_adapter", unload,
			map[string]string{"Sec-Fetch-Site": "cross-site", "Authorization": auth}, 403},
		{"rebinding Host with the token", "POST", "/unload_lora_adapter", unload,
			map[string]string{"Host": "evil.example:" + port, "Authorization": auth}, 403},
		{"rebinding Host reading models", "GET", "/models", "", map[string]string{"Host": "evil.example:" + port, "Authorization": auth}, 403},
		{"cross-site read of models", "GET", "/models", "", map[string]string{"Origin": "http://evil.example", "Authorization": auth}, 403},
		{"unload without the token", "POST", "/unload_lora_adapter", unload, nil, 401},
		{"load without the token", "POST", "/load_lora_adapter", `{"lora_name":"x","lora_path":"` + ad + `"}`, nil, 401},
		{"chat without the token", "POST", "/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, nil, 401},
		{"models without the token", "GET", "/models", "", nil, 401},
	} {
		code, b := send(t, c.method, url+c.path, c.body, c.headers)
		if code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, code, b, c.want)
		}
	}
	if code, b := send(t, "GET", strings.TrimSuffix(url, "/v1")+"/health", "", nil); code != 200 {
		t.Errorf("health without the token: %d %s", code, b)
	}
	code, models := send(t, "GET", url+"/models", "", map[string]string{"Authorization": auth})
	if code != 200 || !strings.Contains(models, `"id":"speaker"`) {
		t.Fatalf("the adapter is no longer served after the forged requests: %d %s", code, models)
	}
	if strings.Contains(models, ad) || strings.Contains(models, tinyModelDir(t)) || strings.Contains(models, `"/`) {
		t.Errorf("/v1/models shows an absolute path: %s", models)
	}
	// A missing path and a folder without an adapter read alike.
	empty := t.TempDir()
	missing := filepath.Join(empty, "nothing-here")
	var bodies []string
	for _, p := range []string{missing, empty} {
		code, b := send(t, "POST", url+"/load_lora_adapter", fmt.Sprintf(`{"lora_name":"x","lora_path":%q}`, p),
			map[string]string{"Authorization": auth, "Content-Type": "application/json"})
		if code != 400 || strings.Contains(b, empty) {
			t.Errorf("load from %s: %d %s (want 400 without the path)", p, code, b)
		}
		bodies = append(bodies, b)
	}
	if bodies[0] != bodies[1] {
		t.Errorf("a missing path and an existing one answer differently:\n%s\n%s", bodies[0], bodies[1])
	}
	if code, b := send(t, "POST", url+"/unload_lora_adapter", unload, map[string]string{"Authorization": auth}); code != 200 {
		t.Errorf("the token holder's unload: %d %s", code, b)
	}

	_, plain, _ := startServeProcess(t, hostileRSSLimitKB, nil, "--lora", "speaker="+ad)
	if code, b := send(t, "POST", plain+"/unload_lora_adapter", unload, nil); code != 403 || !strings.Contains(b, "--allow-adapter-updates") {
		t.Errorf("unload on a server without --allow-adapter-updates: %d %s", code, b)
	}
	if code, b := send(t, "GET", plain+"/models", "", nil); code != 200 || !strings.Contains(b, `"id":"speaker"`) {
		t.Errorf("models after the refused unload: %d %s", code, b)
	}
}

// TestSlowBodiesAreCutOff opens 50 connections that send their headers and
// then one body byte at a time, and checks that `mascot serve` (its own
// process, --body-timeout 1s) closes every one of them long before its
// body is complete, and still serves a well-behaved client.
func TestSlowBodiesAreCutOff(t *testing.T) {
	_, url, _ := startServeProcess(t, hostileRSSLimitKB, nil, "--body-timeout", "1s")
	addr := strings.TrimPrefix(strings.TrimSuffix(url, "/v1"), "http://")
	const conns, length = 50, 100000
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	for range conns {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, length)
			closed := make(chan struct{})
			go func() {
				defer close(closed)
				_, _ = io.Copy(io.Discard, bufio.NewReader(c)) // returns when the server closes
			}()
			sent := 1
			for ; sent < length; sent++ {
				select {
				case <-closed:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := c.Write([]byte(" ")); err != nil {
					<-closed
					return
				}
			}
			mu.Lock()
			problems = append(problems, fmt.Sprintf("a connection sent its whole body of %d bytes, one at a time, without being closed", sent))
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(problems) > 0 {
		t.Fatalf("%d of %d slow connections: %s", len(problems), conns, problems[0])
	}
	if code, b := post(t, url+"/completions", map[string]any{"prompt": "hi", "max_tokens": 2}); code != 200 {
		t.Errorf("a request after the slow ones: %d %s", code, b)
	}
}
