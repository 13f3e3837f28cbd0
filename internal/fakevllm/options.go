package fakevllm

import "time"

// Fault is a kind of injected failure.
type Fault string

// Faults the server can inject on /v1/chat/completions and /v1/completions.
const (
	FaultNone             Fault = ""
	FaultRateLimit        Fault = "429"       // 429 with Retry-After
	FaultServerError      Fault = "500"       // 500 InternalServerError
	FaultUnavailable      Fault = "503"       // 503 ServiceUnavailable
	FaultStall            Fault = "stall"     // no answer until the client gives up (or StallFor)
	FaultTruncated        Fault = "truncated" // 200 with the JSON body cut in half
	FaultMalformed        Fault = "malformed" // 200 with a body that is not JSON
	FaultEmpty            Fault = "empty"     // 200 with empty content
	FaultGarbageDirective Fault = "garbage"   // 200 with a directive that names no agent
)

// Faults are per-request probabilities (each in [0,1], summing to at most
// 1; GarbageDirective is drawn separately and applies to directive prompts
// only).
type Faults struct {
	RateLimit        float64
	ServerError      float64
	Unavailable      float64
	Stall            float64
	Truncated        float64
	Malformed        float64
	Empty            float64
	GarbageDirective float64

	RetryAfter time.Duration // Retry-After of a 429, whole seconds on the wire; default 1s
	StallFor   time.Duration // how long a stall lasts if the client waits; default 1 minute
}

// Latency is the latency model: Base plus a draw from Jitter (uniform in
// [0, Jitter), or exponential with mean Jitter when Exponential is set).
type Latency struct {
	Base        time.Duration
	Jitter      time.Duration
	Exponential bool
}

// Options configures a Server. The zero value serves "Qwen/Qwen3-8B" with no
// latency and no faults.
type Options struct {
	Model       string // served base model name; default "Qwen/Qwen3-8B"
	ModelPath   string // root shown by /v1/models; default Model
	MaxModelLen int    // default 32768
	APIKey      string // when set, /v1 routes require "Authorization: Bearer <key>"

	Latency Latency
	Faults  Faults
	// Script, when set, decides the fault of the first len(Script)
	// generation requests in arrival order (FaultNone for a normal answer);
	// later requests draw from Faults.
	Script []Fault
	Seed   uint64 // seeds the fault and latency draws

	// Adapters are loaded at start (like --lora-modules name=path).
	Adapters map[string]string
	// DisableRuntimeLoRA removes the load/unload routes (404 "Not Found"),
	// as vLLM does without VLLM_ALLOW_RUNTIME_LORA_UPDATING=True.
	DisableRuntimeLoRA bool
	// CheckAdapterPath makes load_lora_adapter require
	// <path>/adapter_config.json, like the engine's check; when false any
	// path loads.
	CheckAdapterPath bool
	// CheckAdapterBase makes load_lora_adapter refuse an adapter whose
	// adapter_config.json names another base_model_name_or_path than the
	// served Model. vLLM refuses such an adapter by its tensor shapes (an
	// 8B adapter does not fit a 0.6B model); the fake has no tensors, so
	// it compares the names the shapes stand for.
	CheckAdapterBase bool
	// LegacyErrors sends the flat error JSON of older vLLM
	// ({"object":"error","message":...}) instead of {"error":{...}}.
	LegacyErrors bool
	// EchoAuthorization appends the request's Authorization header to
	// every chat completion's content, as a careless proxy might (to test
	// that a key never gets stored).
	EchoAuthorization bool
	// Reply, when set, writes the content of chat completions it accepts
	// (see ReplyFunc); the rest are generated as usual.
	Reply ReplyFunc
	// Record keeps every request (path, body, Authorization header) for
	// Requests().
	Record bool
}

func (o Options) withDefaults() Options {
	if o.Model == "" {
		o.Model = "Qwen/Qwen3-8B"
	}
	if o.ModelPath == "" {
		o.ModelPath = o.Model
	}
	if o.MaxModelLen == 0 {
		o.MaxModelLen = 32768
	}
	if o.Faults.RetryAfter <= 0 {
		o.Faults.RetryAfter = time.Second
	}
	if o.Faults.StallFor <= 0 {
		o.Faults.StallFor = time.Minute
	}
	return o
}
