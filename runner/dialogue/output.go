package dialogue

import "encoding/json"

// SchemaVersion and RubricVersion are written into every Metadata block.
const (
	SchemaVersion = "1.0"
	RubricVersion = "paper_v1"
)

// Turn types.
const (
	TurnAgent = "agent"
	TurnUser  = "user"
)

// Directive is the Director's instruction for one round.
type Directive struct {
	AgentName string `json:"agent_name"`
	Action    string `json:"action"`
	Tone      string `json:"tone"`
}

// Turn is one generated utterance. Agent turns carry the directive, the
// speaking agent and the Director's raw output; user turns carry turn_type
// "user" and the user's stated emotion.
type Turn struct {
	TurnIdx         int        `json:"turn_idx"`
	RoundID         int        `json:"round_id"`
	TurnType        string     `json:"turn_type"`
	Directive       *Directive `json:"directive,omitempty"`
	AgentName       string     `json:"agent_name,omitempty"`
	Response        string     `json:"response"`
	DirectiveOutput string     `json:"directive_output,omitempty"`
	Emotion         string     `json:"emotion,omitempty"`
}

// MarshalJSON writes agent turns with every agent field present (directive,
// agent_name, directive_output even when empty) and user turns without them.
func (t Turn) MarshalJSON() ([]byte, error) {
	if t.TurnType == TurnUser {
		type userTurn struct {
			TurnIdx  int    `json:"turn_idx"`
			RoundID  int    `json:"round_id"`
			TurnType string `json:"turn_type"`
			Response string `json:"response"`
			Emotion  string `json:"emotion,omitempty"`
		}
		return json.Marshal(userTurn{t.TurnIdx, t.RoundID, t.TurnType, t.Response, t.Emotion})
	}
	type agentTurn struct {
		TurnIdx         int       `json:"turn_idx"`
		RoundID         int       `json:"round_id"`
		TurnType        string    `json:"turn_type"`
		Directive       Directive `json:"directive"`
		AgentName       string    `json:"agent_name"`
		Response        string    `json:"response"`
		DirectiveOutput string    `json:"directive_output"`
	}
	var d Directive
	if t.Directive != nil {
		d = *t.Directive
	}
	return json.Marshal(agentTurn{t.TurnIdx, t.RoundID, t.TurnType, d, t.AgentName, t.Response, t.DirectiveOutput})
}

// Metadata is the per-record metadata block of the MASCOT JSONL schema.
type Metadata struct {
	SchemaVersion string `json:"schema_version"`
	System        string `json:"system"`
	Dataset       string `json:"dataset"`
	PersonaSet    string `json:"persona_set"`
	DirectorModel string `json:"director_model"`
	SpeakerModel  string `json:"speaker_model"`
	UserModel     string `json:"user_model"`
	RubricVersion string `json:"rubric_version"`
}

// MeetingFields are the QMSum-only record fields.
type MeetingFields struct {
	ID       string `json:"id"`
	StartIdx int    `json:"start_idx"`
	Meeting  string `json:"meeting"`
}

// EmotionFields are the fields Empathetic Dialogues and ESConv records add.
// UserBigFive is null unless the user carried a Big Five profile; UserMBTI
// (an extension) is present only for MBTI profiles.
type EmotionFields struct {
	InitialEmotion    string   `json:"initial_emotion"`
	FinalEmotion      string   `json:"final_emotion"`
	EmotionTrajectory []string `json:"emotion_trajectory"`
	UserBigFive       *BigFive `json:"user_big_five"`
	UserMBTI          string   `json:"user_mbti,omitempty"`
}

// Episode is one conversation; json.Marshal of an Episode is one line of
// the MASCOT JSONL export. Exactly one of the embedded blocks is set:
// MeetingFields for QMSum, EmotionFields for emotional-support datasets.
type Episode struct {
	ConvID string `json:"conv_id"`
	*MeetingFields
	Turns        []Turn         `json:"turns"`
	AgentsSpoken map[string]int `json:"agents_spoken"`
	Metadata     Metadata       `json:"metadata"`
	*EmotionFields

	// Counters are this episode's failure counts (not part of the export).
	Counters Counters `json:"-"`
	// Skipped is true when the episode produced nothing usable.
	Skipped bool `json:"-"`
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
func countSpoken(turns []Turn) map[string]int {
	m := map[string]int{}
	for _, t := range turns {
		if t.TurnType == TurnAgent {
			m[t.AgentName]++
		}
	}
	return m
}
