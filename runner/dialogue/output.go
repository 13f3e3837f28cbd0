package dialogue

import (
	"mascot.dev/mascot/results/jsonl"
)

// RubricVersion is written into every record's metadata block.
const RubricVersion = "paper_v1"

// Turn types (the record's).
const (
	TurnAgent = jsonl.TurnAgent
	TurnUser  = jsonl.TurnUser
)

// Episode is one conversation: its MASCOT JSONL record (results/jsonl, the
// one record type; json.Marshal of an Episode is one line of the export)
// and what the engine counted. The record's emotion fields are set for
// emotional-support datasets, its meeting fields for QMSum.
type Episode struct {
	jsonl.Record

	// Counters are this episode's failure counts (not part of the export).
	Counters Counters `json:"-"`
	// Skipped is true when the episode produced nothing usable.
	Skipped bool `json:"-"`
}

// MarshalJSON writes the record as the export does.
func (e Episode) MarshalJSON() ([]byte, error) { return jsonl.Encode(&e.Record) }

// UnmarshalJSON reads a record line (losslessly, as jsonl.Decode does).
func (e *Episode) UnmarshalJSON(b []byte) error {
	r, err := jsonl.Decode(b)
	if err != nil {
		return err
	}
	e.Record = *r
	return nil
}

// Counters are the tolerant-mode failure counts of one episode (or one
// candidate set); the runner sums them per stage and per run.
type Counters struct {
	NumGenerationFailures     int `json:"num_generation_failures"`
	NumDirectiveParseFailures int `json:"num_directive_parse_failures"`
	NumRandomAgentFallbacks   int `json:"num_random_agent_fallbacks"`
	NumEmptyResponses         int `json:"num_empty_responses"`
	NumSkippedSamples         int `json:"num_skipped_samples"`
}

// Add sums o into c (a chat conversation accumulates its turns' counters).
func (c *Counters) Add(o Counters) {
	c.NumGenerationFailures += o.NumGenerationFailures
	c.NumDirectiveParseFailures += o.NumDirectiveParseFailures
	c.NumRandomAgentFallbacks += o.NumRandomAgentFallbacks
	c.NumEmptyResponses += o.NumEmptyResponses
	c.NumSkippedSamples += o.NumSkippedSamples
}

// countSpoken tallies agent turns by speaker.
func countSpoken(turns []jsonl.Turn) map[string]int {
	m := map[string]int{}
	for _, t := range turns {
		if t.TurnType == TurnAgent {
			m[t.AgentName]++
		}
	}
	return m
}
