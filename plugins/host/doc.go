// Package host is the runner's side of mascot's plugin system. It gives the
// runner plain Go Judge and Metric interfaces and starts, supervises and
// talks to plugin processes behind them (hashicorp/go-plugin, gRPC only,
// AutoMTLS).
//
// Layer: below runner/ (the judge, pairs and metrics stage kinds consume
// Judge and Metric), above plugins/internal/wire and plugins/proto. The
// value types are plugins/spec's, used under that name (only plugins/sdk,
// the plugin authors' package, aliases them).
//
// Lifecycle choices, all in process.go:
//   - A plugin is a command (path + args). A sha256 pin (Config.SHA256) is
//     checked before exec; a mismatch is refused with ErrChecksumMismatch.
//   - On Linux the child gets Pdeathsig SIGKILL, so it dies with the host
//     even when mascot is SIGKILLed (go-plugin alone leaves it orphaned).
//   - Every call runs under Config.CallTimeout. When a call fails because
//     the process died (gRPC Unavailable, or the process has exited), the
//     host starts a fresh process (go-plugin clients cannot be restarted),
//     replays the last Configure, and retries the call, with exponential
//     backoff, at most Config.MaxRestarts times per call. Restarts() counts
//     them. Timeouts are not retried: a hung plugin is reported, not looped.
//   - Plugin stderr is copied to Config.Stderr (the run log).
//
// Result rules, in judge.go and metric.go: batches are split so that each
// request stays under Config.SplitBytes (gRPC's 4 MiB default, for plugins
// in other languages); results are matched by id; a score for an unknown
// criterion, off the scale, or NaN becomes an error diagnostic; any error
// diagnostic on an item voids it (Failed, no partial scores) and counts as
// an annotation failure.
package host
