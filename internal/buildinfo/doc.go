// Package buildinfo says which mascot produced a run: the module version,
// the VCS revision and whether the working tree was dirty, read from the
// binary's own build information (runtime/debug.ReadBuildInfo), which the
// go command stamps into every binary built from a module (revision and
// dirty flag only when it was built inside a VCS checkout; `go test` and
// `go run` binaries carry none).
//
// Layer: internal support, importable from every layer (the CLI prints it
// for --version, the runner writes it into run_config.json,
// run_summary.json and the runs table).
package buildinfo
