package spec

// MetricInfo describes one value a metric plugin computes.
type MetricInfo struct {
	ID             string `json:"id"`
	Description    string `json:"description"`
	HigherIsBetter bool   `json:"higher_is_better"`
}

// MetricDescription is what a metric plugin's Describe returns.
type MetricDescription struct {
	Name        string       `json:"name"`
	Version     string       `json:"version"`
	Metrics     []MetricInfo `json:"metrics"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// Episode is one conversation given to a metric.
type Episode struct {
	ID       string            `json:"id"`
	Turns    []Turn            `json:"turns"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// EpisodeValues are the metric values of one episode.
type EpisodeValues struct {
	EpisodeID   string             `json:"episode_id"`
	Values      map[string]float64 `json:"values"`
	Diagnostics []Diagnostic       `json:"diagnostics,omitempty"`
	// Failed is set by the host when an error diagnostic voided the episode.
	Failed bool `json:"failed,omitempty"`
}

// ComputeResult is what Compute returns for a batch of episodes.
type ComputeResult struct {
	Values []EpisodeValues `json:"values"`
	// Aggregate is a mean over the episodes; AggregateN says over how many.
	Aggregate   map[string]float64 `json:"aggregate"`
	AggregateN  map[string]int     `json:"aggregate_n,omitempty"`
	Diagnostics []Diagnostic       `json:"diagnostics,omitempty"`
	// Failures counts voided episodes (filled by the host).
	Failures int `json:"failures"`
}
