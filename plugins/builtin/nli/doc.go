// Package nli is the built-in nli-contradiction metric served by `mascot
// plugin serve nli-contradiction`. It pairs the agent turns of each episode,
// sends (premise, hypothesis) pairs to an NLI classification endpoint, and
// reports the share of pairs classified as CONTRADICTION.
//
// Endpoints: "vllm-classify" (POST {url}/classify, {"model", "input": [text]},
// the pair joined by pair_separator, default roberta's "</s></s>"; answer
// {"data": [{"label"} | {"probs"}]}) or "tei-predict" (POST {url}/predict,
// {"inputs": [[premise, hypothesis]]}; answer [[{"label", "score"}]]).
//
// Pairing modes: same-round (agent turns sharing a round_id), all-pairs
// (every two agent turns), adjacent-agent (consecutive agent turns by
// different agents, user turns skipped). Direction temporal: the earlier
// turn is the premise; bidirectional: both orders are classified and the
// pair counts as contradictory when either is. Episodes whose turns lack
// round_id are refused in same-round mode unless allow_round_inference is
// set; the inferred round then starts at the beginning and after each user
// turn (a choice: the Director cycle boundary is not in such files).
package nli
