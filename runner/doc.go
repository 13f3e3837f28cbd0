// Package runner plans and executes an experiment's stage graph.
//
// A stage kind registers itself in one call (Register: its schema.KindSpec,
// version, summary and constructor) in a Registry, whose Kinds is the set
// schema.Load validates specs against; the constructor turns a decoded schema.Stage into a Stage that lists its
// units and runs them. The executor orders stages by their references,
// runs independent stages concurrently (training stages hold a device slot),
// runs a stage's units up to its concurrency limit, and commits each unit's
// result rows together with its done mark in one SQLite transaction
// (results.CommitUnit), so a killed run loses at most the units in flight
// and a rerun of the same command resumes.
//
// Fingerprints: a stage's fingerprint hashes its kind, kind version,
// canonical config (execution-only fields such as concurrency excluded), the
// model ids and sampling of the endpoints it uses (never URLs or keys) and
// its upstream stages' fingerprints. A unit's fingerprint hashes the stage
// fingerprint with the unit's own inputs (context id, persona, sample
// index, the fingerprints of the items it reads). A unit whose fingerprint
// is done in the store is reused, by any run, which is how sweeps share
// upstream work.
//
// Executors: where a stage's units run is the only thing the runner
// delegates. A stage whose executor (its own, else executor.kind) is ""
// or "local" runs here; any other name must be wired by the caller in
// Services.Executors (the CLI wires runner/slurm under "slurm"; there is no
// process-wide registry), and the runner hands that Executor the stage's
// pending units (ExecJob) and records the outcome, knowing nothing of
// Slurm or its options. The other side of the seam is a shard run
// (Options.Shard): a remote worker (`mascot stage-exec`) executes its
// share of one stage's units against its own copy of the store, writes
// files into the controller's run directory and leaves the stage's Finish
// to the controller, which ingests the worker's database.
//
// Sweeps (sweep*.go): a sweep block or the -m axes of `mascot run`
// expand into variants, run as child runs of a parent run up to the
// sweep's max_parallel at a time; a failed variant is recorded and the
// others go on. Variants on the built-in engine share its servers through
// reference-counted handles (Engine, EngineServer) keyed by endpoint and
// model stage fingerprint. PlanSweep plans every variant and says which
// stages all share. A racing search (race.go) runs the variants on a
// Slice of their evaluation contexts (the units keep their fingerprints,
// so a longer round reuses a shorter one's) and stops those whose paired
// CI against the round's best lies below zero, or the worse half.
//
// Layer: runner sits under cmd and over schema, results, plugins/host,
// trainer and runner/* (llm, dialogue, datasets, stages).
package runner
