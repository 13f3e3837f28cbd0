package datasets

// Utterance is one line of a source conversation or transcript.
type Utterance struct {
	Speaker  string `json:"speaker"`
	Text     string `json:"text"`
	Strategy string `json:"strategy,omitempty"` // ESConv supporter strategy
}

// Sample is one dataset item turned into a dialogue context. Every loader
// produces Samples so the dialogue engine never sees dataset formats.
type Sample struct {
	ID      string `json:"id"`      // stable id: conv_id, meeting id + query index, ...
	Dataset string `json:"dataset"` // qmsum | esconv | empathetic_dialogues | jsonl

	// Emotional support fields.
	Emotion   string `json:"emotion,omitempty"`
	Valence   string `json:"valence,omitempty"` // positive | negative | neutral
	Situation string `json:"situation,omitempty"`
	Problem   string `json:"problem,omitempty"`

	// Meeting fields.
	Domain   string `json:"domain,omitempty"` // academic | committee | product
	Meeting  string `json:"meeting,omitempty"`
	Query    string `json:"query,omitempty"`
	Answer   string `json:"answer,omitempty"`
	StartIdx int    `json:"start_idx,omitempty"`

	// Context is the conversation or transcript excerpt shown to agents.
	Context []Utterance `json:"context"`

	Meta map[string]string `json:"meta,omitempty"`
}
