package spec

// ItemKind says what a judged Item is.
type ItemKind string

// The item kinds.
const (
	KindCandidate  ItemKind = "candidate"
	KindTurn       ItemKind = "turn"
	KindEpisode    ItemKind = "episode"
	KindComparison ItemKind = "comparison"
)

// Directive is the Director's instruction for a turn.
type Directive struct {
	AgentName string `json:"agent_name"`
	Action    string `json:"action"`
	Tone      string `json:"tone"`
}

// Turn is one utterance of a conversation.
type Turn struct {
	Index   int    `json:"turn_idx"`
	Role    string `json:"role"`    // "agent" or "user"
	Speaker string `json:"speaker"` // agent name or "user"
	Text    string `json:"text"`
	// RoundID is the Director cycle the turn belongs to; nil when unknown.
	RoundID   *int       `json:"round_id,omitempty"`
	Directive *Directive `json:"directive,omitempty"`
}

// Alternative is one side of a comparison item.
type Alternative struct {
	ID       string `json:"id"`
	System   string `json:"system"`
	Response string `json:"response,omitempty"`
	Turns    []Turn `json:"turns,omitempty"`
}

// Metadata keys the host fills on items for the judges that read them.
const (
	// MetaDirective is a turn item's own directive (the Director's
	// instruction the judged turn answered), as a JSON Directive.
	MetaDirective = "directive"
	// MetaPersonas is an episode item's persona cards, a JSON object
	// from agent name to card (as Item.Persona holds one).
	MetaPersonas = "personas"
)

// Item is one thing to judge.
type Item struct {
	ID   string   `json:"id"`
	Kind ItemKind `json:"kind"`
	// Context is the conversation before Response (candidates, turns).
	Context  []Turn `json:"context,omitempty"`
	Response string `json:"response,omitempty"`
	// AgentName and Persona identify who produced Response.
	AgentName string `json:"agent_name,omitempty"`
	Persona   string `json:"persona,omitempty"`
	// Turns are the judged turns of an episode or an N-turn block.
	Turns []Turn `json:"turns,omitempty"`
	// Source is material the conversation is about (transcript, situation).
	Source       string            `json:"source,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Alternatives []Alternative     `json:"alternatives,omitempty"`
	// Seed drives anything random the judge does (comparison order).
	Seed int64 `json:"seed,omitempty"`
}

// Anchor says what one point of the scale means for a criterion.
type Anchor struct {
	Score int    `json:"score"`
	Text  string `json:"text"`
}

// Criterion is one scored dimension.
type Criterion struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Level       string   `json:"level"` // "agent" or "collective"
	Anchors     []Anchor `json:"anchors,omitempty"`
}

// Scale is the raw score range.
type Scale struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Normalize maps a raw score to 0–100: 100*(raw-min)/(max-min).
func (s Scale) Normalize(raw float64) float64 {
	if s.Max <= s.Min {
		return 0
	}
	return 100 * (raw - s.Min) / (s.Max - s.Min)
}

// Contains reports whether raw lies on the scale.
func (s Scale) Contains(raw float64) bool { return raw >= s.Min && raw <= s.Max }

// JudgeInfo is what Describe returns.
type JudgeInfo struct {
	Name          string       `json:"name"`
	Version       string       `json:"version"`
	RubricVersion string       `json:"rubric_version"`
	Criteria      []Criterion  `json:"criteria"`
	Scale         Scale        `json:"scale"`
	ItemKinds     []ItemKind   `json:"item_kinds"`
	Diagnostics   []Diagnostic `json:"diagnostics,omitempty"`
}

// Score is one criterion's score from one judge, or pooled (Judge == "").
type Score struct {
	CriterionID string  `json:"criterion_id"`
	Judge       string  `json:"judge,omitempty"`
	Raw         float64 `json:"raw"`
	// Normalized is filled by the host from the judge's Scale (0–100).
	Normalized float64 `json:"normalized"`
	Rationale  string  `json:"rationale,omitempty"`
}

// RawOutput is one judge model's verbatim output for an item.
type RawOutput struct {
	Judge string `json:"judge"`
	Text  string `json:"text"`
}

// Preference is a comparison outcome on one criterion ("overall" allowed).
type Preference struct {
	CriterionID string   `json:"criterion_id"`
	Judge       string   `json:"judge,omitempty"`
	WinnerID    string   `json:"winner_id"` // empty = tie
	Ranking     []string `json:"ranking,omitempty"`
	Rationale   string   `json:"rationale,omitempty"`
}

// ItemResult is the judgement of one item.
type ItemResult struct {
	ItemID      string       `json:"item_id"`
	Scores      []Score      `json:"scores,omitempty"`
	RawOutputs  []RawOutput  `json:"raw_outputs,omitempty"`
	Preferences []Preference `json:"preferences,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Failed is set by the host when an error diagnostic voided the item;
	// Scores and Preferences are then empty (no partial rows).
	Failed bool `json:"failed,omitempty"`
}

// Statistic is a batch-level figure such as inter-judge agreement.
type Statistic struct {
	Name        string  `json:"name"`
	CriterionID string  `json:"criterion_id,omitempty"`
	Value       float64 `json:"value"`
	N           int     `json:"n"`
}

// ScoreResult is what Score returns for a batch.
type ScoreResult struct {
	Results     []ItemResult `json:"results"`
	Statistics  []Statistic  `json:"statistics,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// AnnotationFailures counts voided items (filled by the host).
	AnnotationFailures int `json:"annotation_failures"`
}
