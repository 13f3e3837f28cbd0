#!/bin/sh
# Generates the Python stubs the example plugins import into DIR:
# mascot's protocol (plugins/proto/mascot/plugin/v1) and the go-plugin and
# health services (proto/ here). Put DIR on PYTHONPATH when mascot starts the
# plugin. The stubs are not committed, so they never drift from the .proto
# files; python_test.go runs this script.
# Needs Debian's python3-grpc-tools (protoc 3.21, matching python3-protobuf
# 3.21 and python3-grpcio 1.51); PYTHON overrides the interpreter.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
protos=$(cd "$here/../../proto" && pwd)
mkdir -p "$1"
"${PYTHON:-/usr/bin/python3}" -m grpc_tools.protoc -I "$protos" -I "$here/proto" \
  --python_out="$1" --grpc_python_out="$1" \
  mascot/plugin/v1/common.proto mascot/plugin/v1/judge.proto mascot/plugin/v1/metric.proto \
  goplugin.proto health.proto
