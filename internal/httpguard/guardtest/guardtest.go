// Package guardtest sends the requests a hostile web page (or a DNS
// rebinding) could make, so the tests of every surface behind
// internal/httpguard forge them the same way.
//
// Layer: test support beside internal/httpguard; it imports only the
// standard library.
package guardtest

import (
	"context"
	"io"
	"net/http"
	"strings"
)

// Send makes one request to url with headers set as given ("Host" sets
// the request's Host, as a rebinding page's would be) and returns the
// status and the body.
func Send(ctx context.Context, method, url, body string, headers map[string]string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
