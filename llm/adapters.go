package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Adapter errors, matched with errors.Is on what LoadAdapter and
// UnloadAdapter return.
var (
	// ErrAdapterExists: vLLM answered 400 "The lora adapter 'x' has already
	// been loaded."
	ErrAdapterExists = errors.New("adapter already loaded")
	// ErrAdapterNotFound: vLLM answered 404 (unknown name on unload, or "No
	// adapter found" for the path on load).
	ErrAdapterNotFound = errors.New("adapter not found")
	// ErrRuntimeLoRADisabled: the route does not exist; start vLLM with
	// --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True.
	ErrRuntimeLoRADisabled = errors.New("runtime LoRA updating is disabled on the server")
)

// AdapterError is one replica's refusal to load or unload an adapter.
type AdapterError struct {
	Op      string // "load" or "unload"
	Name    string
	URL     string
	Status  int
	Type    string // vLLM's error type: InvalidUserInput, NotFoundError, ...
	Message string
}

// Error implements error.
func (e *AdapterError) Error() string {
	return fmt.Sprintf("%sing adapter %q on %s: HTTP %d %s: %s", e.Op, e.Name, e.URL, e.Status, e.Type, e.Message)
}

// Is matches the adapter sentinels.
func (e *AdapterError) Is(target error) bool {
	switch target {
	case ErrAdapterExists:
		return e.Status == http.StatusBadRequest && strings.Contains(e.Message, "already been loaded")
	case ErrAdapterNotFound:
		return e.Status == http.StatusNotFound && e.Type != ""
	case ErrRuntimeLoRADisabled:
		return (e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed) && e.Type == ""
	}
	return false
}

// LoadAdapter loads a PEFT LoRA adapter directory under name on every
// replica of the endpoint, through POST /v1/load_lora_adapter, so requests
// with Request.Model = name use it. Replicas that fail are reported together
// (errors.Join of *AdapterError and transport errors).
func (c *Client) LoadAdapter(ctx context.Context, endpoint, name, path string) error {
	body := map[string]any{"lora_name": name, "lora_path": path}
	return c.adapterOp(ctx, endpoint, "load", name, "/load_lora_adapter", body)
}

// UnloadAdapter unloads name on every replica through POST
// /v1/unload_lora_adapter.
func (c *Client) UnloadAdapter(ctx context.Context, endpoint, name string) error {
	body := map[string]any{"lora_name": name}
	return c.adapterOp(ctx, endpoint, "unload", name, "/unload_lora_adapter", body)
}

func (c *Client) adapterOp(ctx context.Context, endpoint, op, name, suffix string, body any) error {
	st, err := c.endpoint(endpoint)
	if err != nil {
		return fmt.Errorf("%sing adapter %q: %w", op, name, err)
	}
	if c.cfg.Offline {
		return nil // nothing is served offline: replies come from the cache
	}
	b, _ := json.Marshal(body)
	var errs []error
	for _, r := range st.pool.reps {
		var err error
		for n := 0; n <= st.ep.Retries; n++ {
			var retry bool
			retry, err = st.adapterCall(ctx, r, op, name, suffix, b)
			if !retry {
				break
			}
			if sleepCtx(ctx, c.backoff(st.ep, n+1)) != nil {
				break
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// adapterCall makes one call; retry reports a transient failure.
func (st *endpointState) adapterCall(ctx context.Context, r *replica, op, name, suffix string, body []byte) (bool, error) {
	actx, cancel := context.WithTimeout(ctx, st.ep.Timeout)
	defer cancel()
	resp, err := st.do(actx, r, http.MethodPost, suffix, body)
	if err != nil {
		return ctx.Err() == nil, fmt.Errorf("%sing adapter %q on %s: %s", op, name, r.redacted, st.redact(err.Error()))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode == http.StatusOK {
		return false, nil
	}
	e := &AdapterError{Op: op, Name: name, URL: r.redacted, Status: resp.StatusCode}
	e.Type, e.Message = errorTypeMessage(raw)
	e.Message = st.redact(e.Message)
	return resp.StatusCode >= 500 || resp.StatusCode == 429, e
}

// do sends a raw request to a replica with the endpoint's key.
func (st *endpointState) do(ctx context.Context, r *replica, method, suffix string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+suffix, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if st.key != "" {
		req.Header.Set("Authorization", "Bearer "+st.key)
	}
	return st.hc.Do(req)
}

// errorTypeMessage reads vLLM's error JSON: nested {"error":{...}} (current),
// flat {"object":"error",...} (older) or FastAPI's {"detail":...}.
func errorTypeMessage(raw []byte) (typ, msg string) {
	var v struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", string(raw)
	}
	var n struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if len(v.Error) > 0 && json.Unmarshal(v.Error, &n) == nil && n.Message != "" {
		return n.Type, n.Message
	}
	if v.Message != "" {
		return v.Type, v.Message
	}
	if v.Detail != nil {
		return "", fmt.Sprint(v.Detail)
	}
	return "", string(raw)
}

// ModelInfo is one entry of GET /v1/models.
type ModelInfo struct {
	ID     string `json:"id"`
	Root   string `json:"root,omitempty"`
	Parent string `json:"parent,omitempty"` // base model of an adapter; empty for a base model
}

// Models lists the models (base and loaded adapters) of each replica of
// the endpoint, keyed by redacted replica URL.
func (c *Client) Models(ctx context.Context, endpoint string) (map[string][]ModelInfo, error) {
	st, err := c.endpoint(endpoint)
	if err != nil {
		return nil, fmt.Errorf("listing models: %w", err)
	}
	out := map[string][]ModelInfo{}
	var errs []error
	for _, r := range st.pool.reps {
		ms, err := st.listModels(ctx, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[r.redacted] = ms
	}
	return out, errors.Join(errs...)
}

func (st *endpointState) listModels(ctx context.Context, r *replica) ([]ModelInfo, error) {
	actx, cancel := context.WithTimeout(ctx, st.ep.Timeout)
	defer cancel()
	resp, err := st.do(actx, r, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, fmt.Errorf("listing models on %s: %s", r.redacted, st.redact(err.Error()))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		_, msg := errorTypeMessage(raw)
		return nil, fmt.Errorf("listing models on %s: HTTP %d: %s", r.redacted, resp.StatusCode, st.redact(msg))
	}
	var v struct {
		Data []ModelInfo `json:"data"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("listing models on %s: decoding: %w", r.redacted, err)
	}
	return v.Data, nil
}

// modelID returns the model to ask for: the request's override, the
// endpoint's Model, or the first base model the server lists.
func (st *endpointState) modelID(ctx context.Context, c *Client, override string) (string, error) {
	if override != "" {
		return override, nil
	}
	if st.ep.Model != "" {
		return st.ep.Model, nil
	}
	st.modelMu.Lock()
	defer st.modelMu.Unlock()
	if st.model != "" {
		return st.model, nil
	}
	var errs []error
	for _, r := range st.pool.reps {
		ms, err := st.listModels(ctx, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, m := range ms {
			if m.Parent == "" {
				st.model = m.ID
				return m.ID, nil
			}
		}
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no base model listed"))
	}
	return "", fmt.Errorf("resolving model of endpoint %q: %w", st.ep.Name, errors.Join(errs...))
}
