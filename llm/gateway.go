package llm

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"mascot.dev/mascot/internal/httpguard"
)

// Gateway puts a Client in front of plugin processes: an OpenAI-compatible
// chat endpoint on loopback whose requests the Client sends on, with its
// cache, journal, retries, counters and trace. Judge plugins call their
// endpoints through it, so their replies are cached per request like every
// other role's (a rerun of a judge unit sends only the requests of the
// items that failed), their attempts are journaled and counted exactly,
// --trace-role-calls records them, and a replay answers them offline.
//
// A plugin request names its endpoint and role in the path
// (<URL>/<endpoint>/<role>/v1/chat/completions, see Gateway.BaseURL) and
// its scope in the ScopeHeader: a token the host registered for the unit
// being judged (Gateway.Scope), which carries the unit's counters and
// makes the cache key "<scope prefix>|<role>|<hash of the request body>":
// a function of the unit and of what is asked, so identical requests get
// one reply and a changed item gets a new one.
type Gateway struct {
	c    *Client
	ln   net.Listener
	srv  *http.Server
	base string

	mu     sync.Mutex
	scopes map[string]gatewayScope
}

type gatewayScope struct {
	ctx    context.Context // carries the unit's tally
	prefix string          // the unit fingerprint
	mu     *sync.Mutex
	keys   map[string][]string // item id -> cache keys of its requests
}

// ScopeHeader carries a gateway scope on a plugin's requests:
// "<token>/<item id>", the value the host gave the item (ScopeMetadata).
const ScopeHeader = "X-Mascot-Scope"

// ScopeMetadata is the item metadata key under which the host hands a
// plugin the scope of each item: the token of the unit it belongs to and
// its id.
const ScopeMetadata = "mascot.llm_scope"

// ItemScope is the scope value of item id in the unit of token.
func ItemScope(token, id string) string { return token + "/" + id }

// Forgetter is implemented by a Cache that can drop replies (the runner's).
type Forgetter interface {
	Forget(keys []string)
}

// StartGateway listens on 127.0.0.1 and serves c until Close.
func StartGateway(c *Client) (*Gateway, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the LLM gateway: %w", err)
	}
	g := &Gateway{c: c, ln: ln, base: "http://" + ln.Addr().String(), scopes: map[string]gatewayScope{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{endpoint}/{role}/v1/chat/completions", g.handleChat)
	mux.HandleFunc("GET /{endpoint}/{role}/v1/models", g.handleModels)
	// The request guard every mascot server shares: Host must name this
	// listener and no cross-origin request gets through (the scope token
	// is what binds a request to a unit).
	guard := httpguard.New(httpguard.Options{Hosts: httpguard.BoundHosts(ln.Addr().String(), ln.Addr().String()), AllMethods: true,
		Refuse: func(w http.ResponseWriter, status int, msg string) { gatewayError(w, status, msg) }})
	g.srv = &http.Server{Handler: guard.Wrap(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// BaseURL is the base URL (ending in /v1) a plugin uses to call endpoint
// for role through the gateway.
func (g *Gateway) BaseURL(endpoint, role string) string {
	return g.base + "/" + url.PathEscape(endpoint) + "/" + url.PathEscape(role) + "/v1"
}

// Scope registers the unit whose requests carry the returned token:
// their counters go to ctx's Tally, their cache keys start with prefix.
// release ends the scope.
func (g *Gateway) Scope(ctx context.Context, prefix string) (token string, release func()) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	token = hex.EncodeToString(b[:])
	g.mu.Lock()
	g.scopes[token] = gatewayScope{ctx: ctx, prefix: prefix, mu: &sync.Mutex{}, keys: map[string][]string{}}
	g.mu.Unlock()
	return token, func() {
		g.mu.Lock()
		delete(g.scopes, token)
		g.mu.Unlock()
	}
}

// Forget drops from the cache the replies that the given items of the
// unit of token received: the judge could not use them (it voided the
// items), so a rerun asks again instead of replaying what failed.
func (g *Gateway) Forget(token string, items []string) {
	g.mu.Lock()
	sc, ok := g.scopes[token]
	g.mu.Unlock()
	f, can := g.c.cfg.Cache.(Forgetter)
	if !ok || !can || len(items) == 0 {
		return
	}
	var keys []string
	sc.mu.Lock()
	for _, id := range items {
		keys = append(keys, sc.keys[id]...)
	}
	sc.mu.Unlock()
	if len(keys) > 0 {
		f.Forget(keys)
	}
}

// Close stops serving.
func (g *Gateway) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return g.srv.Shutdown(ctx)
}

// gatewayBody is the part of an OpenAI chat request the gateway forwards.
type gatewayBody struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature"`
	TopP        *float64  `json:"top_p"`
	TopK        *int      `json:"top_k"`
	MaxTokens   int       `json:"max_tokens"`
	Seed        *int      `json:"seed"`
	N           int       `json:"n"`
	Stop        []string  `json:"stop"`
	RepPenalty  *float64  `json:"repetition_penalty"`
	Truncate    *int      `json:"truncate_prompt_tokens"`
	Kwargs      struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Stream bool `json:"stream"`
}

func (g *Gateway) handleChat(w http.ResponseWriter, r *http.Request) {
	endpoint, role := r.PathValue("endpoint"), r.PathValue("role")
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		gatewayError(w, http.StatusBadRequest, "reading the request: "+err.Error())
		return
	}
	var b gatewayBody
	if err := json.Unmarshal(body, &b); err != nil {
		gatewayError(w, http.StatusBadRequest, "decoding the request: "+err.Error())
		return
	}
	if b.Stream {
		gatewayError(w, http.StatusBadRequest, "the LLM gateway does not stream")
		return
	}
	token, item, _ := strings.Cut(r.Header.Get(ScopeHeader), "/")
	g.mu.Lock()
	sc, ok := g.scopes[token]
	g.mu.Unlock()
	if !ok {
		gatewayError(w, http.StatusBadRequest, "unknown or missing "+ScopeHeader+": requests through the gateway belong to a unit")
		return
	}
	req := Request{Role: role, Endpoint: endpoint, Messages: b.Messages, Temperature: b.Temperature, TopP: b.TopP,
		TopK: b.TopK, MaxTokens: b.MaxTokens, Seed: b.Seed, N: b.N, Stop: b.Stop, RepetitionPenalty: b.RepPenalty,
		TruncatePromptTokens: b.Truncate,
		EnableThinking:       b.Kwargs.EnableThinking}
	if ep, ok := g.c.eps[endpoint]; ok && b.Model != "" && b.Model != ep.ep.Model {
		req.Model = b.Model
	}
	if rf := b.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		req.JSONSchema, req.SchemaName = rf.JSONSchema.Schema, rf.JSONSchema.Name
	}
	sum := sha256.Sum256(body)
	req.CacheKey = sc.prefix + "|" + role + "|" + hex.EncodeToString(sum[:16])
	sc.mu.Lock()
	sc.keys[item] = append(sc.keys[item], req.CacheKey)
	sc.mu.Unlock()
	// The unit's counters, with the plugin's cancellation.
	ctx, cancel := context.WithCancel(context.WithoutCancel(sc.ctx))
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	resp, err := g.c.Chat(ctx, req)
	if err != nil {
		gatewayError(w, statusFor(err), err.Error())
		return
	}
	writeCompletion(w, resp)
}

// handleModels answers GET /v1/models with the endpoint's model, so a
// plugin client that resolves its model finds one.
func (g *Gateway) handleModels(w http.ResponseWriter, r *http.Request) {
	st, ok := g.c.eps[r.PathValue("endpoint")]
	if !ok {
		gatewayError(w, http.StatusNotFound, "unknown endpoint "+r.PathValue("endpoint"))
		return
	}
	model, err := st.modelID(r.Context(), g.c, "")
	if err != nil {
		gatewayError(w, http.StatusBadGateway, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list",
		"data": []map[string]any{{"id": model, "object": "model", "owned_by": "mascot"}}})
}

// writeCompletion answers with resp as an OpenAI chat completion; the raw
// text (with any <think> block) is the content, as the server sent it.
func writeCompletion(w http.ResponseWriter, resp Response) {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int    `json:"index"`
		Message      msg    `json:"message"`
		FinishReason string `json:"finish_reason"`
	}
	out := struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
	}{ID: "gateway", Object: "chat.completion", Model: resp.ModelID}
	texts := resp.Raw
	if len(texts) == 0 {
		texts = resp.Choices
	}
	for i, t := range texts {
		fin := "stop"
		if i < len(resp.FinishReasons) && resp.FinishReasons[i] != "" {
			fin = resp.FinishReasons[i]
		}
		out.Choices = append(out.Choices, choice{Index: i, Message: msg{Role: "assistant", Content: t}, FinishReason: fin})
	}
	out.Usage.PromptTokens, out.Usage.CompletionTokens = resp.PromptTokens, resp.CompletionTokens
	out.Usage.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// statusFor is the HTTP status a failed request is answered with: the
// plugin sees one attempt that failed (the gateway's client retried it
// already), 400 for what no retry would fix.
func statusFor(err error) int {
	var e *Error
	if errors.As(err, &e) && (e.Kind == KindConfig || e.Kind == KindClient) {
		return http.StatusBadRequest
	}
	return http.StatusBadGateway
}

func gatewayError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": strings.TrimSpace(msg),
		"type": "GatewayError", "code": status}})
}
