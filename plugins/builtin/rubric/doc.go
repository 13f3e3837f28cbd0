// Package rubric is the built-in LLM judge served by `mascot plugin serve
// rubric`. It scores items on the paper's criteria (rubric_version
// "paper_v1": five per-agent criteria on candidates and turns, four
// collective criteria on episodes or N-turn blocks) on a 1–5 scale, which
// the host normalises to 0–100 as 100·(s−1)/4. The criteria, their ids,
// names, descriptions, anchors and order come from the one rubric
// definition, experiments/prompts/criteria.cue (package prompts).
//
// Each configured judge endpoint (any OpenAI-compatible server) scores every
// item; the result holds each judge's scores and a pooled score (judge "",
// the mean over judges), the judges' rationales and raw outputs, and per
// batch Krippendorff's alpha (interval, ordinal) and, with two judges,
// Cohen's kappa. With mode "compare", items of kind comparison (2 or 3
// alternatives) are judged in a seeded random order and, with swap on, also
// reversed; a verdict that flips with the order counts as a tie.
//
// Choices: requests go through plain net/http (go-openai drops temperature
// 0); response_format json_schema asks for {criterion: {rationale, score}};
// the parser still accepts code fences, <think> blocks, trailing text,
// {"scores": ...} wrappers, names instead of ids and numbers as strings
// ("4", "4/5"). A missing or off-scale score, or any failing judge, is an
// error diagnostic on the item, which the host counts as an annotation
// failure with no partial scores. The API key is read from the environment
// variable the config names and is never logged or echoed.
package rubric
