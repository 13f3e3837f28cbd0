// Package capsule packs a finished run into one file that replays it
// offline (`mascot export RUN --capsule FILE`, `mascot replay FILE`).
//
// A capsule is a zip file:
//
//	manifest.json   the run (id, name, config name), the code that ran it and
//	                the code that packed it (internal/buildinfo), the
//	                experiment and stage seeds, every data file the config
//	                reads (path, sha256, size, packed or not), every stage's
//	                digest (units, result rows, artefact hashes:
//	                results.StageDigest) and the report's sha256
//	config.json     the resolved config (run_config.json)
//	replies.jsonl   every LLM reply the run used: {"key": ..., "response": ...}
//	report.json     `mascot report RUN --format json` at export
//	data/N/...      the data files (datasets, pretraining text) that are not
//	                embedded in the binary
//	artifacts/...   trained artefacts (adapters, models), when packed
//
// Replay creates the run again, under its own id, in a database that does
// not hold it yet: the replies go into the response cache, the LLM client
// is offline (a request the capsule does not hold fails, and replay names
// it and its stage), the built-in engine is not started, data is read from
// the capsule (the config, and so every fingerprint, keeps its paths), and
// every stage executes as the run did: dialogue, judging and metrics
// consume the stored replies, training stages train again. Each finished
// stage is compared with the capsule's digest; a retrained artefact whose
// hash differs is reported, and when the capsule carries that artefact it
// is put in place of the retrained one (files and hash), so downstream
// stages are checked against what the run really used. At the end the
// report is rebuilt and compared byte for byte with the capsule's.
//
// Size. Replies dominate: about one to three kilobytes per request (a
// prompt's answer and its usage, deflated about four times), so the
// demo's capsule is a few hundred kilobytes and a 100,000-episode paper
// run's some hundreds of megabytes. Data files are packed because replay
// needs them and they are small next to the replies (--no-data keeps
// hashes only; replay then needs the files at their paths). Trained
// artefacts are not needed when training is deterministic, and can be
// large (a merged reward model of an 8B policy is gigabytes): by default
// (artifacts auto) they are packed when they sum to at most 256 MiB, and
// only hashed otherwise; "all" and "none" force either. Base models
// named by model_dir are never packed: replay trains from them where the
// config says they are.
//
// Not covered: requests a plugin makes outside the run's LLM gateway (the
// nli-contradiction metric calls its NLI endpoint itself), and datasets
// read from the Hugging Face hub (hashed, not packed); their replay needs
// those servers or files.
//
// Layer: runner/capsule sits beside the stage kinds under cmd and over
// runner, results, results/report and schema.
package capsule
