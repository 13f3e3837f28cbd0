// Package spec holds the plain Go values that judges and metrics exchange
// with mascot: items, turns, criteria, scores, diagnostics, episodes and
// metric values. It has no dependencies on gRPC or go-plugin.
//
// Layering: plugins/proto (wire format) <- plugins/internal/wire (converts
// between these values and the proto messages) <- plugins/host (the runner's
// side) and plugins/sdk (the plugin author's side). host and sdk re-export
// these types under their own names so that neither audience has to import
// this package directly.
//
// Choices: raw scores are float64 on the judge's Scale; the host fills
// Score.Normalized as 100*(raw-min)/(max-min). An ERROR diagnostic attached
// to an item voids that item (no partial scores are kept).
package spec
