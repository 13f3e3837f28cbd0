// Package python holds a judge plugin written in Python (lengthjudge.py,
// served by mascotplugin.py), the non-Go twin of plugins/examples/lengthjudge.
// It shows what a plugin in any language must do to be started by mascot's
// plugin host; docs/plugins.md is the guide. The Go code here is only the
// test that runs the script through plugins/host and through an experiment.
//
// Needs /usr/bin/python3 with Debian's python3-grpcio, python3-protobuf,
// python3-grpc-tools and python3-cryptography; without them the tests skip,
// unless MASCOT_FULL=1, where they fail.
package python
