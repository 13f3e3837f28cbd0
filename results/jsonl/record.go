package jsonl

import "encoding/json"

// SchemaVersion is the MASCOT JSONL schema version, written into every
// record's metadata block.
const SchemaVersion = "1.0"

// Turn types (Turn.TurnType). An agent turn may also leave it empty (a
// record of the Python original's older form).
const (
	TurnAgent = "agent"
	TurnUser  = "user"
)

// Record is one MASCOT JSONL line: one conversation. Pointer and raw-JSON
// fields are "absent" when nil, so that a record is written with exactly
// the keys it had; Extra keeps every other key verbatim (and the schema
// keys whose value the typed fields cannot hold, such as null), so that
// Encode(Decode(line)) equals line as a JSON value.
//
// Emotional-support datasets (Empathetic Dialogues, ESConv) set
// InitialEmotion, FinalEmotion, EmotionTrajectory and UserBigFive; QMSum
// sets StartIdx and Meeting, and its "id" beside conv_id travels in Extra.
type Record struct {
	ConvID  string          `json:"conv_id"`
	IDField string          `json:"id_field,omitempty"` // "conv_id" (default) or "id" (QMSum's own files)
	IDRaw   json.RawMessage `json:"id_raw,omitempty"`   // the id's JSON when it was not a string

	Meeting  *string `json:"meeting,omitempty"`
	StartIdx *int    `json:"start_idx,omitempty"`

	Metadata     Metadata       `json:"metadata"`
	AgentsSpoken map[string]int `json:"agents_spoken,omitempty"`

	InitialEmotion    *string         `json:"initial_emotion,omitempty"`
	FinalEmotion      *string         `json:"final_emotion,omitempty"`
	EmotionTrajectory json.RawMessage `json:"emotion_trajectory,omitempty"`
	UserBigFive       json.RawMessage `json:"user_big_five,omitempty"`

	// Extra holds the record's keys outside the schema (and schema keys
	// whose value was JSON null), written back verbatim.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`

	Turns []Turn `json:"turns,omitempty"`
}

// Metadata is a record's metadata block.
type Metadata struct {
	SchemaVersion string `json:"schema_version"`
	System        string `json:"system"`
	Dataset       string `json:"dataset"`
	PersonaSet    string `json:"persona_set"`
	DirectorModel string `json:"director_model"`
	SpeakerModel  string `json:"speaker_model"`
	UserModel     string `json:"user_model"`
	RubricVersion string `json:"rubric_version"`
	// Extra holds metadata keys outside the schema.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Directive is the Director's instruction for one agent turn.
type Directive struct {
	AgentName string `json:"agent_name"`
	Action    string `json:"action"`
	Tone      string `json:"tone"`
}

// Turn is one turn of a record: an agent turn, with the Director's
// directive and raw output when it had them, or a user turn (TurnType
// TurnUser), whose stated emotion travels in Extra ("emotion", see
// UserTurn). ID and EpisodeID are the store's row ids of a turn read from a
// database; they are not part of the line.
type Turn struct {
	ID              int64                      `json:"id"`
	EpisodeID       int64                      `json:"episode_id"`
	TurnIdx         int                        `json:"turn_idx"`
	RoundID         *int                       `json:"round_id,omitempty"`
	TurnType        string                     `json:"turn_type,omitempty"`
	AgentName       string                     `json:"agent_name"`
	Response        string                     `json:"response"`
	Directive       *Directive                 `json:"directive,omitempty"`
	DirectiveOutput *string                    `json:"directive_output,omitempty"` // the Director's raw output
	Extra           map[string]json.RawMessage `json:"extra,omitempty"`
}

// emotionKey is the user turn's key for the emotion the user stated.
const emotionKey = "emotion"

// AgentTurn is an agent turn as the dialogue engine writes it: every agent
// key present, the directive and the Director's raw output included even
// when empty.
func AgentTurn(idx, round int, agent, response string, d Directive, directiveOutput string) Turn {
	return Turn{TurnIdx: idx, RoundID: &round, TurnType: TurnAgent, AgentName: agent, Response: response,
		Directive: &d, DirectiveOutput: &directiveOutput}
}

// UserTurn is a user turn as the dialogue engine writes it: no agent keys,
// and the user's emotion when one was stated.
func UserTurn(idx, round int, response, emotion string) Turn {
	t := Turn{TurnIdx: idx, RoundID: &round, TurnType: TurnUser, Response: response,
		Extra: map[string]json.RawMessage{omitKey: json.RawMessage(`["agent_name"]`)}}
	if emotion != "" {
		t.Extra[emotionKey] = AppendString(nil, emotion)
	}
	return t
}

// Emotion returns the emotion a user turn stated ("" when none).
func (t Turn) Emotion() string {
	var s string
	if raw, ok := t.Extra[emotionKey]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// Round returns the turn's round, 0 when it has none.
func (t Turn) Round() int {
	if t.RoundID == nil {
		return 0
	}
	return *t.RoundID
}

// Output returns the Director's raw output of an agent turn ("" when none).
func (t Turn) Output() string {
	if t.DirectiveOutput == nil {
		return ""
	}
	return *t.DirectiveOutput
}
