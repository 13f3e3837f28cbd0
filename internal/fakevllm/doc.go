// Package fakevllm is a test helper: an HTTP server on 127.0.0.1 that speaks
// vLLM's OpenAI-compatible API (GET /v1/models, POST /v1/chat/completions,
// POST /v1/completions, POST /v1/load_lora_adapter and
// /v1/unload_lora_adapter, GET /health) with vLLM's status codes, messages
// and error JSON, deterministic content, and fault injection.
//
// Layer: test support for llm, runner/dialogue and the stage kinds;
// it imports nothing from the project.
//
// Content is a pure function of the request (model, messages, seed, choice
// index), and a few prompt patterns are recognised so that tests can check
// that a persona and a directive reached the prompt:
//   - a prompt that mentions Agent, Action and Tone gets a directive
//     ("Agent: X\nAction: ...\nTone: ...", or JSON with a json_schema) that
//     names one of the agents found in the prompt;
//   - a system prompt "You are <Name>" gets an answer that starts
//     "I'm <Name>." and, when the prompt holds "Action:" and "Tone:" lines,
//     ends with "[directive: <action> | <tone>]";
//   - a response_format json_schema gets JSON with every required property,
//     numbers within minimum/maximum (scores for judges).
//
// Faults (429 with Retry-After, 500, 503, stalls, truncated or malformed
// JSON, empty content, garbage directives) are drawn per request from a
// seeded RNG, or scripted in order, and counted so tests can compare the
// client's counters with what was injected. Log keeps one entry per
// generation request (its X-Request-Id, status, usage counted, whether it
// was cut off), so a test can reconcile a client's counters with what the
// server received, request by request.
package fakevllm
