// Package serve is the built-in engine: an OpenAI-compatible HTTP server
// (vLLM's dialect) over the plain-Go Qwen3 decoder, used as `mascot serve`
// and started in process by the runner's builtin endpoint.
//
// Layer: trainer, above qwen3, sample, lora and tokenizer; nothing from
// runner. cmd/mascot wires Main; the runner uses New, Start, LoadModel and
// the adapter endpoints.
//
// Endpoints: GET /v1/models (base plus adapters, vLLM's cards with root
// and parent), POST /v1/chat/completions, POST /v1/completions,
// POST /v1/load_lora_adapter, POST /v1/unload_lora_adapter (vLLM's status
// codes and messages), GET /health, GET /metrics (vllm:num_requests_running,
// vllm:num_requests_waiting and token counters, Prometheus text format).
// Errors use vLLM's {"error":{message,type,param,code}} JSON.
//
// Choices:
//   - Continuous batching: one scheduler goroutine owns decoding
//     (engine.go, schedule.go). Requests wait in a bounded queue
//     (Options.MaxQueue; one more gets 503 with Retry-After) and join the
//     batch at step boundaries while their choices fit Options.MaxBatch.
//     Every step samples one token for each decoding sequence and runs one
//     qwen3 Extend pass per base model over all of them (adapter views
//     included, so each weight is read once per step) plus at most
//     Options.PrefillChunk tokens of the prompts being prefilled, oldest
//     first: a long prompt costs the others a bounded amount of work per
//     step instead of stalling them. A prompt's n choices share its
//     prefill and start once its last block ran. Finished requests leave
//     at the next boundary; a client that goes away leaves the queue at
//     once (a context watch) or the batch at the next boundary. An idle
//     engine that gets a request waits a little (gather.go, at most 2 ms)
//     for requests posted at the same time, so a burst starts in one pass
//     instead of the first request running a pass alone.
//   - Batch invariance: a request's tokens and log-probs have the same
//     bits alone or beside any others, whatever the arrival times, prefill
//     blocks or prefix-cache hits (docs/design/batch-invariance.md).
//   - Sampling mirrors trainer/sample step for step (sample.Choose; the
//     scheduler interleaves requests, so it calls the step itself): choice
//     i draws from PCG(seed, i), so a seed gives the same text whatever
//     else runs, and the same tokens as sample.GenerateN. A request
//     without a seed gets a fresh random one (crypto/rand). The draws of
//     one step run in parallel. Reported log-probs are sample's
//     (temperature-scaled, before top-k/top-p; T = 1 when greedy).
//   - response_format json_schema is enforced by trainer/serve/constrain:
//     each step masks the tokens whose bytes the schema's state machine
//     rejects, or that leave the document impossible to finish within
//     max_tokens, and allows only the end token once the document is
//     complete. The output therefore parses and validates (see constrain's
//     doc for the schema subset). json_object is not supported.
//   - Output text skips special tokens; stop strings are cut (unless
//     include_stop_str_in_output) and held back while streaming until they
//     can no longer match; a trailing partial UTF-8 character is held back.
//   - Chat prompts use tokenizer.ApplyChatTemplate (Qwen3's template);
//     chat_template_kwargs.enable_thinking defaults to true as in vLLM.
//     There is no reasoning parser: <think> blocks stay in content.
//   - A model directory's tokenizer is tokenizer.json, or the byte-level
//     demo tokenizer when a mascot.json sidecar says
//     {"mascot_tokenizer": "bytes"} (WriteByteTokenizerMarker).
//   - Hostile requests are 400s before they cost memory (limits.go): n is
//     capped (Options.MaxN), bodies are cut off at Options.MaxBodyBytes,
//     and n × (prompt + max_tokens) over a request's prompts is capped
//     (Options.MaxRequestTokens).
//   - The server binds 127.0.0.1 unless Options.Addr says otherwise.
package serve
