// Package sdk is what a plugin author imports to write a mascot judge or
// metric in Go: implement Judge (or Metric) over plain Go values and call
// ServeJudge (or ServeMetric) from main. The SDK hides go-plugin and gRPC;
// authors in other languages implement plugins/proto/mascot/plugin/v1
// directly with the handshake described in docs/plugins.md.
//
// Layer: plugin side. It shares plugins/internal/wire with plugins/host, so
// the cookie, protocol version and conversions cannot drift.
//
// Rules for implementations: report problems with the input or with one
// item as Diagnostics (ItemID set), not as Go errors; a Go error fails the
// whole call. Score and Compute may be called again with the same batch after
// a restart, and Configure again after a restart, so both must be
// idempotent. Log to stderr (os.Stdout carries the go-plugin handshake); the
// host copies stderr into its run log.
package sdk
