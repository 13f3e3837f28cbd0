// Package enginesuite is the built-in engine's decode benchmark: decode
// speed on a Qwen3-shaped model of 63 M parameters as ratios to anchors
// measured in the same process run, in interleaved rounds (the machine is
// shared, so only same-run ratios mean anything). BenchmarkEngineSuite
// (trainer/serve) and the benchmark suite (internal/benchsuite) both run
// it:
//
//	go test ./trainer/serve -run '^$' -bench EngineSuite -benchtime 1x
//
// Each round measures, in an order that rotates from round to round:
//   - read: the model's weights read four times in a row by membw, every
//     core, after an untimed pass (the decoder phases also read the
//     weights step after step, so both see the same caches); bound =
//     bandwidth ÷ weight bytes = steps per second a decoder that only had
//     to read its weights would reach.
//   - decoder 1 and 8: StepBatch steps of one and of eight sequences.
//   - engine 1 and 8: tokens per second through the real server over
//     loopback HTTP, one client, then eight at once (completions of 64
//     tokens after prompts of 4–11 tokens, temperature 0.8, seeded).
//
// Each phase gives min / median / max over the rounds, per wall second and
// per CPU-second of the process (on a loaded machine the wall-clock rates
// measure the scheduler as much as the code), the wall and CPU seconds it
// took in all, and the load average before and after.
//
// Layer: trainer (above serve, qwen3, tokenizer; internal/membw); used by
// benchmarks only. Linux: CPU time comes from getrusage.
package enginesuite
