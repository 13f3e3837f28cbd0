// Package h1 sends HTTP/1.1 requests to plain-HTTP servers on the calling
// goroutine, over a pool of kept-alive connections per host.
//
// The llm client sends every request of a run through it when the
// endpoint's URL is http:// (a vLLM server, the built-in engine, the fake
// server of the tests); https:// endpoints keep net/http's Transport.
//
// Layer: internal, imported by llm; it imports only the standard library.
//
// Choices:
//   - Why not net/http's Transport: it runs two goroutines per connection
//     (a reader and a writer) and hands each request and its response
//     between them and the caller over channels, so a request costs several
//     goroutine wakeups besides its two system calls. For the runner, whose
//     requests are a few kilobytes answered by a short JSON reply, that
//     hand-off cost 11–17 µs of CPU a request (BenchmarkPost), 6–8 % of a
//     runner request's (docs/benchmarks.md, the round "a request's HTTP on
//     its own goroutine"). Here the caller writes the request and reads
//     the response itself.
//   - The wire format stays net/http's: requests are written by
//     (*http.Request).Write and responses parsed by http.ReadResponse
//     (status line, headers, Content-Length, chunked and close-delimited
//     bodies). Only the connection handling is this package's.
//   - A connection goes back to the pool when its response body was read to
//     its end and the server keeps it open; anything else closes it.
//   - Servers close idle connections (uvicorn, which vLLM runs on, after
//     5 s). A connection idle longer than IdleTimeout is not reused, and
//     one idle for CheckIdleAfter (100 ms) or more is checked first with a
//     non-blocking peek at its socket, which shows a close the server
//     sent: net/http learns the same from the reader goroutine it keeps
//     on every idle connection. A request is sent once: one that fails
//     anyway is the caller's to send again, so that every send is one the
//     caller counted (the llm client journals each attempt).
//   - Cancellation and deadlines come from the request's context: when it
//     ends, the connection's deadline is set in the past, the blocked read
//     or write returns, the connection is closed and the error is the
//     context's.
//   - Not supported (callers route these to net/http): TLS, proxies,
//     HTTP/2, protocol upgrades, Expect: 100-continue. A server that
//     answers before it has read the whole request body and closes the
//     connection (an early 413) gives a write error, not its answer
//     (net/http may return the answer when it arrives first).
package h1
