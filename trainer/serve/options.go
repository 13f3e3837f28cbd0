package serve

import (
	"io"
	"log/slog"
	"time"
)

// Options configure a Server.
type Options struct {
	// Addr is the listen address; default 127.0.0.1:0 (loopback, a free
	// port). Bind another interface only on purpose.
	Addr string
	// ModelDir is the base model: config.json, model.safetensors (or
	// shards) and a tokenizer (see LoadModel).
	ModelDir string
	// Adapters maps served names to PEFT adapter directories, loaded at
	// start like vLLM's --lora-modules.
	Adapters map[string]string
	// MaxQueue bounds the requests waiting for the engine; one more is
	// answered 503. Default 64.
	MaxQueue int
	// MaxBatch bounds the sequences decoded together (a request with n
	// choices counts n, from the step its prompt starts prefilling).
	// Default 8.
	MaxBatch int
	// PrefillChunk is how many prompt tokens one step prefills, beside
	// the sequences decoding, so that a long prompt delays the others'
	// next tokens by a bounded amount of work per step. Default
	// DefaultPrefillChunk.
	PrefillChunk int
	// ModelID is the served name of the base model; default ModelDir, as
	// vLLM names a model after its --model argument.
	ModelID string
	// MaxModelLen caps prompt plus completion tokens; default the config's
	// max_position_embeddings.
	MaxModelLen int
	// MaxN caps a request's n (choices per prompt); default 128, OpenAI's
	// own limit. More is a 400 before any work is done.
	MaxN int
	// MaxBodyBytes caps a request body; default 4 MiB (DefaultMaxBodyBytes).
	// A longer body is a 400 once the limit is read, so a huge prompt never
	// reaches the tokenizer.
	MaxBodyBytes int64
	// MaxRequestTokens caps the KV-cache tokens one request may hold at its
	// end: the sum over its prompts of n × (prompt + max_tokens). Default
	// DefaultRequestContexts × the model's context length. More is a 400.
	MaxRequestTokens int
	// PrefixCacheBytes bounds the memory of the prompt-prefix KV cache:
	// the keys and values of recent prompts, reused by later prompts that
	// start with the same tokens. Default DefaultPrefixCacheBytes; negative
	// turns the cache off.
	PrefixCacheBytes int64
	// Token, when set, must come as "Authorization: Bearer <Token>" on
	// every route but /health (vLLM's --api-key). A run's engines get a
	// per-run token that only the run's own client sends.
	Token string
	// TokenEnv names the environment variable CheckFlags reads Token from
	// (mascot serve --api-key-env).
	TokenEnv string
	// AdapterUpdates turns on POST /v1/load_lora_adapter and
	// /v1/unload_lora_adapter (off: 403), which read and drop adapters
	// at paths the caller names; it needs Token.
	AdapterUpdates bool
	// AllowedHosts are Host values accepted besides the bound address
	// (and localhost for a loopback one): names clients use for this
	// machine. Any other Host is refused (DNS rebinding).
	AllowedHosts []string
	// MaxBodyBytesInFlight bounds, over the whole process, the bytes of
	// request bodies being read and turned into prompts (a request counts
	// its Content-Length, or MaxBodyBytes when it sends none, until its
	// job is queued or refused); past it a request is answered 503 with
	// Retry-After. Default DefaultBodiesInFlight × MaxBodyBytes.
	MaxBodyBytesInFlight int64
	// MaxTokensInFlight bounds, over the whole process, the cache tokens
	// of the requests queued or running (each counts n × (prompt +
	// max_tokens) over its prompts); past it a request is answered 503
	// with Retry-After. Default DefaultRequestsInFlight × the per-request
	// budget.
	MaxTokensInFlight int
	// BodyTimeout bounds reading one request body (default 30 s): a
	// client that sends headers and then trickles its body is cut off.
	// Headers must arrive within 10 s.
	BodyTimeout time.Duration
	// Logger receives request and lifecycle logs; default discards.
	Logger *slog.Logger
}

// Request limits (see Options): a hostile request is refused with a 400
// before it can make the server allocate in proportion to it.
const (
	DefaultMaxN            = 128
	DefaultMaxBodyBytes    = 4 << 20
	DefaultRequestContexts = 32
	// DefaultBodiesInFlight is how many bodies of the largest allowed
	// size the process reads and tokenizes at once.
	DefaultBodiesInFlight = 4
	// DefaultRequestsInFlight is how many requests of the largest
	// allowed size (in cache tokens) the process holds at once.
	DefaultRequestsInFlight = 4
	// DefaultBodyTimeout bounds reading one request body.
	DefaultBodyTimeout = 30 * time.Second
	// headerTimeout bounds reading a request's headers.
	headerTimeout = 10 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = 64
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 8
	}
	if o.PrefillChunk <= 0 {
		o.PrefillChunk = DefaultPrefillChunk
	}
	if o.MaxN <= 0 {
		o.MaxN = DefaultMaxN
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxBodyBytesInFlight <= 0 {
		o.MaxBodyBytesInFlight = DefaultBodiesInFlight * o.MaxBodyBytes
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.PrefixCacheBytes == 0 {
		o.PrefixCacheBytes = DefaultPrefixCacheBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}
