// Package transfer moves runs between the store and MASCOT JSONL files:
// Export writes a run's episodes as conversations.jsonl (with
// run_config.json and run_summary.json beside it), Import creates a run
// from such a file, so conversations produced elsewhere (the Python
// original) can be judged and reported, and exported runs can move
// between databases.
//
// Choices:
//   - An export reads the run's episodes in one streaming pass while
//     encoders turn them into lines; files are written through a
//     temporary file and a rename, so they appear whole or not at all.
//   - An import is one unit whose fingerprint is the hash of the file's
//     bytes, committed in one transaction through the store's bulk
//     insertion (results.Tx.BulkEpisodes); decoders on every core turn
//     chunks of lines into records while one goroutine inserts them in
//     file order. A bad line stops it with the line number
//     (ErrBadRecord) and leaves the database as it was.
//   - ImportNew (`mascot import` into a database that does not exist yet)
//     fills the database aside (results.Fresh: no write-ahead log, no
//     syncing, a small page cache, the episode indexes built once at the
//     end) and links it into place only when complete: a failed or killed
//     import leaves no database.
//   - The imported file is mapped, not read into the heap.
//
// Layer: above results (the store) and results/jsonl (the record and its
// codec); used by the CLI (`mascot export`, `mascot import`) and the
// benchmarks. The store knows nothing of files.
package transfer
