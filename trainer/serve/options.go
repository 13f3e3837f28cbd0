package serve

import (
	"io"
	"log/slog"
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
	// Logger receives request and lifecycle logs; default discards.
	Logger *slog.Logger
}

// Request limits (see Options): a hostile request is refused with a 400
// before it can make the server allocate in proportion to it.
const (
	DefaultMaxN            = 128
	DefaultMaxBodyBytes    = 4 << 20
	DefaultRequestContexts = 32
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
	if o.PrefixCacheBytes == 0 {
		o.PrefixCacheBytes = DefaultPrefixCacheBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}
