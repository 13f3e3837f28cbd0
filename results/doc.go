// Package results is the SQLite store every mascot result lands in: runs,
// stages, the unit ledger, LLM calls (response cache and trace), episodes and
// their turns, candidates, judgments, comparisons, human preferences,
// metrics, preference pairs, training steps, artifacts and counters.
//
// Layer: results sits below the runner (cmd -> runner -> results) and never
// imports it. It stores MASCOT JSONL records (results/jsonl, below it) as
// episode rows; moving them to and from files is results/transfer, above
// it. The report tables live in results/report.
//
// Choices:
//   - One file, mattn/go-sqlite3, WAL. Writes go through one writer *sql.DB
//     holding a single connection opened with _txlock=immediate (BEGIN takes
//     the write lock, so writers wait on busy_timeout instead of failing on
//     lock upgrade). Reads use a second *sql.DB with _query_only so the CLI,
//     the report and the web viewer never block the writer.
//   - Migrations are embedded SQL files (migrations/NNNN_name.sql) applied in
//     order; each runs with its PRAGMA user_version bump in one transaction,
//     so a failed migration leaves the version unchanged.
//   - A unit of work is identified by its fingerprint. Its result rows and
//     its done mark commit in one transaction (CommitUnit); committing a unit
//     that is already done inserts nothing and returns no error, which makes
//     kill-and-rerun safe.
//   - Result rows link to the unit that produced them (unit_fp) and carry the
//     run that first produced them (run_id, provenance only). Runs reach units
//     through run_units(run_id, fingerprint, cached), so a sweep child that
//     reuses an upstream unit sees its rows. Every query "for a run" goes
//     through run_units.
//   - Judgments point at exactly one item (candidate, turn or episode) with a
//     real foreign key each, enforced by a CHECK. Pairs point at two candidates.
//   - LLM counters are exact under kills: every HTTP attempt is appended to
//     its run's journal file before it is sent and counted when its outcome
//     is stored (llm_settled); a cached reply says whether committed work
//     counted its usage (llm_calls.counted); the attempts of dead runs'
//     journals that never settled are counted as lost in flight
//     (attemptlog.go, llmattempts.go, migrations 0013 and 0015).
//   - The candidates of a unit that share a prompt point at one
//     candidate_prompts row (migration 0016); readers resolve it, and
//     removal finds a unit's prompts through its candidates: the table
//     has no index on unit_fp (migration 0018), which each unit's commit
//     would have written at a random place.
//   - For the same reason candidates are keyed by their unit's number, not
//     its fingerprint: units.no, given in order of creation (migration
//     0019), and UNIQUE (unit_no, sample_idx), so each unit's entries land
//     at the right edge of the index. A unit's candidates are found by
//     unit_no = (SELECT no FROM units WHERE fingerprint = ?); ingest gives
//     copied candidates the number their unit got in the main database.
//   - A run's unit tallies are facts of that run: the writer records the
//     acting run with each unit state change, and only its tallies move.
//   - A fresh report reads a run's report blocks (migration 0017,
//     report_blocks.go): every unit linked to a run appends one binary
//     entry (its episodes' grouping columns, its score sums) in the linking
//     transaction, so the report reads a few hundred blocks instead of a
//     row per unit. They are checked against the run's report stamp; a
//     write they do not hold leaves them behind, the per-unit rows serve
//     meanwhile and a finished run's next report rebuilds them.
//   - What a stage holds can be digested without ids or times
//     (StageDigest), and the rows stages read come in content order, so
//     two databases with the same results compare equal.
//   - A unit of many episodes (an import) goes through Tx.BulkEpisodes:
//     multi-row INSERTs with the ids SQLite would give, the per-row tally
//     and full-text triggers suspended and their work done once at the
//     end (bulk.go, bulk_rows.go). A database that does not exist yet can
//     be filled aside and published whole (Fresh, fresh.go).
//   - Times are stored as unix milliseconds. JSON columns are checked with
//     json_valid. API keys are never stored: request JSON passed to the LLM
//     trace is scrubbed of api_key / authorization fields.
//   - Runs can be tagged (run_tags, TagRun, RunFilter.Tag), compared field
//     by field (DiffRuns: resolved-config leaves, then stages by
//     fingerprint) and removed (RemoveRuns): a run takes with it the units
//     no other run links, less any unit whose rows a kept unit's rows
//     reference, and the files (run directory, artifacts) only those hold.
package results
