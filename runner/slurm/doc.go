// Package slurm is the runner's Slurm executor: it runs a stage's pending
// units as a Slurm job (a job array over unit shards) and ingests what the
// jobs wrote into the controller's results store.
//
// Layer: an executor plugged into runner (runner.RegisterExecutor); it sits
// over runner, results and schema and talks to Slurm only through its CLI
// (sbatch --parsable, squeue -t all, scontrol show job -o, scancel), never
// slurmrestd and never sacct, which needs accounting storage.
//
// Choices (docs/distributed.md): the controller keeps the stage graph and
// is the one SQLite writer. Each array task runs `mascot stage-exec` on its
// shard of units against a job-local copy of a snapshot of the store (no
// SQLite file is shared across nodes) and its wrapper script writes an
// exitcode file, which is the final word once Slurm has forgotten the job.
// Job ids are stored per attempt under <runs>/slurm/<stage fingerprint>/,
// so a restarted controller re-attaches to jobs still in the queue instead
// of submitting them again. Ingest is idempotent (results.Ingest), so a
// requeued or re-attached shard is never counted twice. Polling is one
// squeue call per interval for all jobs of the executor. A job's stage
// writes its files into the controller's run directory (stage-exec
// --run-dir) and its counters into counters.json, which the controller
// adds to the stage once per newly ingested shard; Finish runs only on the
// controller.
package slurm
