#!/bin/sh
# Regenerates the Go code for the mascot plugin protocol with pinned tools.
# Needs protoc (Debian: apt-get install protobuf-compiler, libprotoc 3.21.12).
# The protoc-gen-go plugins are installed into a temporary GOBIN so that they
# never enter go.mod.
set -eu
PROTOC_GEN_GO=v1.36.12
PROTOC_GEN_GO_GRPC=v1.6.2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd) # plugins/proto
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$bin" && GOBIN="$bin" GOFLAGS= go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO")
(cd "$bin" && GOBIN="$bin" GOFLAGS= go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC")
cd "$root"
PATH="$bin:$PATH" protoc -I . \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  mascot/plugin/v1/common.proto mascot/plugin/v1/judge.proto mascot/plugin/v1/metric.proto
