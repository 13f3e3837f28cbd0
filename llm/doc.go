// Package llm is mascot's LLM client layer: it sends chat requests on
// behalf of roles (director, speaker, user, judge, ...) to OpenAI-compatible
// servers, vLLM first.
//
// Layer: the bottom, beside schema and results: of mascot it imports
// only internal/httpguard (the request guard of its gateway), internal/h1
// (its HTTP/1.1 client for http:// endpoints) and the leaf results/jsonl
// (its JSON string writer, for the request body). The runner
// (runner/dialogue, the stage kinds) and the built-in rubric judge plugin
// both call models through it, so it sits below both; above go-openai and
// net/http. Nothing in here knows about MASCOT prompts.
//
// Choices:
//   - go-openai v1.43.0 sends the requests (client, headers, errors), but
//     the chat body is encoded once per request from plain structs and a
//     successful reply is decoded by this package (wire.go): go-openai's
//     message type re-encodes and re-scans every message, the largest CPU
//     cost of a request, and its float fields are omitempty (temperature 0
//     would be dropped) while vendor extras (top_k, repetition_penalty) are
//     missing. Its HTTP doer sends that body in place of go-openai's and
//     records the status and Retry-After header of each attempt.
//   - Requests to http:// endpoints go out on the calling goroutine
//     through internal/h1 (net/http's wire format, its own connection
//     pool): net/http's Transport hands every request between three
//     goroutines, 11–17 µs of CPU a request (internal/h1's BenchmarkPost),
//     6–8 % of a runner request's. https:// endpoints, and redirects, go
//     through net/http.
//   - Each Endpoint may list several replica URLs. A request goes to the
//     replica with the fewest outstanding requests; a replica that fails
//     (connection, timeout, 5xx) is cooled down and a failed attempt fails
//     over to another replica.
//   - Retries use exponential backoff with jitter; a 429's Retry-After is
//     honoured. Every attempt has its own deadline inside the request's total
//     deadline.
//   - API keys are read from the environment variable an Endpoint names and
//     are never stored in Endpoint, errors or traces: error messages are
//     built by this package and redacted.
//   - Errors are *Error values with a Kind, so the runner can count failures
//     by kind; Stats gives counters and latency percentiles.
//   - A Cache keyed by Request.CacheKey (the unit fingerprint) replays
//     responses exactly; the runner implements it on SQLite. A cached reply
//     says whether its usage was counted: the reuse of a reply fetched by
//     work lost to an interruption counts it (Tally.Reused), once.
//   - A Journal records every attempt of a keyed request before it is
//     sent, carrying the record's id as X-Request-Id, so counts stay exact
//     under kills (journal.go). With a Journal, attempts are not added to
//     a context's Tally.
//   - A keyed request without a seed gets DeriveSeed(run seed, key);
//     Config.Offline answers from the cache alone (replay).
//   - Gateway serves a Client as an OpenAI endpoint on loopback for plugin
//     processes, so their requests get the same cache, journal, counters,
//     retries and trace (gateway.go).
package llm
