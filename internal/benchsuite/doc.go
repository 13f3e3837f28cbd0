// Package benchsuite is mascot's benchmark suite: one command measures the
// figures issue 23 set goals for and prints them as one table, each a
// ratio to an anchor measured in the same process run, over interleaved
// rounds (A then B in one round, B then A in the next), min / median /
// max, CPU-seconds beside wall time and the load average before and
// after. On a shared machine wall-clock rates measure the other users as
// much as the code; same-run ratios and CPU-seconds hold still.
//
//	go test ./internal/benchsuite -run '^$' -bench Suite -benchtime 1x -timeout 2h
//
// What it measures (docs/benchmarks.md shows a run):
//   - candidates: a candidates stage (runner, store, cache, attempts
//     journal) against the fake vLLM server in a process of its own
//     (20 ms per reply, endpoint concurrency 64), anchored on a bare
//     go-openai client sending the prompts the stage sent, 64 at a time,
//     to the same server: dialogue contexts of about 2.5 kB per request,
//     the same with a second process keeping one core busy,
//     QMSum-length contexts of about 7 kB, 2.5 kB contexts written into
//     a store that already holds an earlier run (candHistory), and 2.5 kB
//     contexts with each side of a round in a process of its own, as a
//     user's run and a user's client each start (candidates_fresh.go);
//   - store: report and compare computed afresh, export and import of the
//     benchmark database (internal/benchdb, shaped like a paper run), and
//     the viewer's report and compare pages ready after a write, anchored
//     on one SQL pass over the run's judgment rows;
//   - engine: the built-in engine's decode rates against the measured read
//     bandwidth of its weights (trainer/serve/enginesuite);
//   - demo: `mascot run demo` in a fresh directory, the built binary, CPU
//     seconds of it and of its plugin processes, and its peak RSS, run
//     from a small helper process (runMeasured says why); the row names
//     the BLAS the trainer chose (the built-in sgemm unless MASCOT_BLAS
//     says otherwise), which its CPU time depends on. Where OpenBLAS is
//     installed, the demo runs again with MASCOT_BLAS=openblas beside it.
//
// Environment: MASCOT_BENCH_ROUNDS (rounds per phase, default 7),
// MASCOT_BENCH_EPISODES (the store's database size, default 10,000),
// MASCOT_BENCH_100K=1 (the store at 100,000 episodes: a 4.4 GB database,
// built once under the temp dir in about 20 minutes; not for CI),
// MASCOT_BENCH_SKIP (comma-separated phases to leave out: candidates,
// store, engine, demo), MASCOT_BENCH_PAGE (a markdown page, relative to
// the repository root, usually docs/benchmarks.md, into which the table is
// written: page.go keeps one block per kind of run). TestSuiteSmall runs every phase but the demo at
// a small scale (MASCOT_FULL=1, as CI does).
//
// Helper processes (the fake server, the busy process, the fresh case's
// sides, the demo's launcher) re-execute the running binary: its main or
// TestMain calls HelperMain first.
//
// Layer: benchmarks only, at the top (it drives runner, results,
// results/report, results/web and trainer/serve/enginesuite); nothing
// imports it.
package benchsuite
