// Package pluginv1 is the generated Go code for version 1 of the mascot
// plugin protocol (the .proto files beside it, which document the
// semantics). It is the lowest layer of plugins/: plugins/host (the runner's
// side) and plugins/sdk (the plugin author's side) both convert to and from
// these messages, and nothing else should use them directly.
//
// Regenerate with `go generate` (needs protoc; the script installs the
// pinned protoc-gen-go v1.36.12 and protoc-gen-go-grpc v1.6.2 into a
// temporary GOBIN).
package pluginv1

//go:generate sh generate.sh
