// Package slurm is the runner's Slurm executor: it runs a stage's pending
// units as a Slurm job (a job array over unit shards) and ingests what the
// jobs wrote into the controller's results store.
//
// Layer: an implementation of runner.Executor (and runner.ServerStarter
// for slurm-server endpoints); it sits over runner, results and schema and
// talks to Slurm only through its CLI (sbatch --parsable, squeue -t all,
// scontrol show job -o, scancel), never slurmrestd and never sacct, which
// needs accounting storage. Nothing registers it: the CLI wires one
// Executor into runner.Services.Executors under "slurm" (and as
// Services.Servers), the only way a run finds it. The runner hands it a
// stage's pending units and the experiment; the Slurm settings are read
// here (StageOptions: executor.slurm overlaid with the stage's slurm
// block), not by the runner.
//
// Choices (docs/slurm.md): the controller keeps the stage graph and is
// the one SQLite writer. Each array task runs `mascot stage-exec` on its
// shard of units against a job-local copy of a snapshot of the store (no
// SQLite file is shared across nodes); that is a runner shard run
// (runner.Options.Shard listing the task's units). Its wrapper script
// writes an exitcode file, which is the final word once Slurm has forgotten the job.
// Job ids are stored per attempt under <runs>/slurm/<stage fingerprint>/,
// so a restarted controller re-attaches to jobs still in the queue instead
// of submitting them again. Ingest is idempotent (results.Ingest), so a
// requeued or re-attached shard is never counted twice. Polling is one
// squeue call per interval for all jobs of the executor. A job's stage
// writes its files into the controller's run directory (stage-exec
// --run-dir) and its counters into counters.json, which the controller
// adds to the stage once per newly ingested shard; Finish runs only on the
// controller.
//
// Detached mode (Detach, Sync; `mascot run --detach`, `mascot sync RUN`)
// submits every stage at once. A stage's units cannot be listed before its
// parents' results exist, so a detached job lists them itself: it seeds
// its shard database from a snapshot taken at detach time, ingests the
// shard databases of every earlier stage (read-only files in the shared
// run directory, in submission order), then runs the units of its stage
// that hash to its shard (runner.Shard's Part of Parts). Result rows reference
// each other by integer id, and Ingest keeps references to rows a shard
// did not produce as they are; ids only agree between a job's copy and the
// controller's database if both apply the same ingests in the same order
// to the same starting state. Hence each stage depends (afterok) on the
// jobs of every stage before it in topological order (a chain, not just
// its parents), Sync ingests stage by stage in that order and stops at the
// first stage not done, and the record keeps a watermark (highest id per
// table) that Sync checks before each ingest, refusing if the database
// changed meanwhile. A failed stage leaves later jobs never runnable:
// with DependencyParameters=kill_invalid_depend Slurm cancels them,
// otherwise they pend on DependencyNeverSatisfied and Sync scancels them;
// either way they are reported cancelled because of that stage. Once all
// stages are ingested, `mascot sync` runs the experiment once on the
// controller, which finds every unit done and only runs Finish.
//
// StartServer runs a long-lived server job (vllm serve on $MASCOT_PORT);
// its wrapper publishes endpoints/<name>/<job id>.json in the run
// directory once /health answers, and Stop scancels it.
package slurm
