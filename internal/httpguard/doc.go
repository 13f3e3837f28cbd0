// Package httpguard is the request guard in front of every HTTP server
// mascot opens: the viewer (`mascot ui`), `mascot serve`, the built-in
// engines a run starts and the run's LLM gateway for plugins. They all
// listen on loopback by default, where a web page in the user's browser can
// still reach them in two ways, both refused here:
//
//   - DNS rebinding: a name the attacker controls resolves to 127.0.0.1, so
//     the browser sends that name as Host. A request must name the address
//     the server is bound to (BoundHosts), else 403.
//   - Cross-site requests: a page elsewhere posts to the loopback port (a
//     text/plain POST needs no preflight). net/http's CrossOriginProtection
//     reads Sec-Fetch-Site and Origin; API servers refuse a cross-origin
//     request of any method, pages only an unsafe one.
//
// A server may also require a bearer token (Authorization: Bearer) that
// only its own clients know: the per-run token of a run's engines, the
// --api-key-env token of `mascot serve`.
//
// Layer: internal, imported by results/web, trainer/serve and runner/llm;
// it imports only the standard library.
package httpguard
