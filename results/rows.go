package results

import (
	"encoding/json"
	"time"

	"mascot.dev/mascot/results/jsonl"
)

// Directive, Metadata and Turn are the MASCOT JSONL record's own types
// (results/jsonl), under the names the store's callers use.
type (
	Directive = jsonl.Directive
	Metadata  = jsonl.Metadata
	Turn      = jsonl.Turn
)

// Episode is one conversation as the store keeps it: the MASCOT JSONL
// record (embedded; its Turns carry their row ids) and the columns the
// store adds (ids, unit, mode, split labels).
type Episode struct {
	ID        int64  `json:"id"`
	UnitFP    string `json:"unit_fp"`
	RunID     string `json:"run_id"` // producing run (provenance)
	Idx       int    `json:"idx"`    // position within its unit
	SampleIdx int    `json:"sample_idx"`

	System  string `json:"system"`
	Dataset string `json:"dataset"`
	Valence string `json:"valence,omitempty"`
	Domain  string `json:"domain,omitempty"`
	Mode    string `json:"mode,omitempty"` // independent | branching | eval | imported

	jsonl.Record

	CreatedAt time.Time `json:"created_at"`

	// MetadataJSON, when set, is jsonl.EncodeMetadata(Record.Metadata),
	// which the store then keeps as it is instead of encoding the block
	// again (an import reads it from the line: jsonl.DecodeKeepingMetadata).
	// It is ignored when the store fills in a default (an empty system,
	// dataset or schema version), and never read back.
	MetadataJSON string `json:"-"`
}

// Candidate is one sampled response (or directive, or block) for a context.
type Candidate struct {
	ID        int64           `json:"id"`
	UnitFP    string          `json:"unit_fp"`
	RunID     string          `json:"run_id"`
	Kind      string          `json:"kind"` // response | directive | block
	ContextID string          `json:"context_id"`
	Persona   string          `json:"persona"`
	SampleIdx int             `json:"sample_idx"`
	Prompt    string          `json:"prompt,omitempty"`
	Text      string          `json:"text"`
	Raw       string          `json:"raw,omitempty"`
	ModelID   string          `json:"model_id,omitempty"`
	Meta      json.RawMessage `json:"meta,omitempty"`
}

// Judgment is one criterion score given by a judge to exactly one item:
// a candidate, a turn or an episode (set exactly one of the three ids).
// Agent names the agent judged when per-agent criteria are scored on an
// episode; "" for collective criteria.
type Judgment struct {
	ID            int64   `json:"id"`
	UnitFP        string  `json:"unit_fp"`
	RunID         string  `json:"run_id"`
	Judge         string  `json:"judge"`
	RubricVersion string  `json:"rubric_version,omitempty"`
	Criterion     string  `json:"criterion"`
	Agent         string  `json:"agent,omitempty"`
	Score         float64 `json:"score"`
	ScaleMin      float64 `json:"scale_min"` // 0,0 means 1..5
	ScaleMax      float64 `json:"scale_max"`
	CandidateID   int64   `json:"candidate_id,omitempty"`
	TurnID        int64   `json:"turn_id,omitempty"`
	EpisodeID     int64   `json:"episode_id,omitempty"`
	Rationale     string  `json:"rationale,omitempty"`
	Raw           string  `json:"raw,omitempty"`
	LLMCallKey    string  `json:"llm_call_key,omitempty"`
}

// Normalized maps the score to 0..100: 100·(s−min)/(max−min).
func (j Judgment) Normalized() float64 {
	lo, hi := j.ScaleMin, j.ScaleMax
	if lo == 0 && hi == 0 {
		lo, hi = 1, 5
	}
	if hi == lo {
		return j.Score
	}
	return 100 * (j.Score - lo) / (hi - lo)
}

// Comparison is a pairwise or three-way judgment: which of the systems shown
// (in the order shown) won. Choice is a system name or "tie".
type Comparison struct {
	ID         int64    `json:"id"`
	UnitFP     string   `json:"unit_fp"`
	RunID      string   `json:"run_id"`
	Judge      string   `json:"judge"`
	Criterion  string   `json:"criterion,omitempty"`
	ContextID  string   `json:"context_id"`
	Systems    []string `json:"systems"`
	EpisodeIDs []int64  `json:"episode_ids,omitempty"`
	Choice     string   `json:"choice"`
	Rationale  string   `json:"rationale,omitempty"`
	Raw        string   `json:"raw,omitempty"`
}

// Tie is the Choice of a comparison or preference with no winner.
const Tie = "tie"

// HumanPreference is one rater's choice between systems shown side by side.
type HumanPreference struct {
	ID         int64     `json:"id"`
	RunID      string    `json:"run_id,omitempty"`
	RaterID    string    `json:"rater_id"`
	Time       time.Time `json:"time"`
	ContextID  string    `json:"context_id"`
	Systems    []string  `json:"systems"`
	EpisodeIDs []int64   `json:"episode_ids,omitempty"`
	Choice     string    `json:"choice"`
	Note       string    `json:"note,omitempty"`
	// Criterion is what the rater judged; "" = overall preference.
	Criterion string `json:"criterion,omitempty"`
	// Runs, set on a cross-run rating, is the run of each shown episode
	// (aligned with Systems, which then hold ArmLabel values).
	Runs []string `json:"runs,omitempty"`
}

// Metric is one metric value, per episode (EpisodeID set) or aggregate.
type Metric struct {
	ID        int64           `json:"id"`
	UnitFP    string          `json:"unit_fp"`
	RunID     string          `json:"run_id"`
	EpisodeID int64           `json:"episode_id,omitempty"`
	System    string          `json:"system,omitempty"`
	Name      string          `json:"name"`
	Value     float64         `json:"value"`
	Meta      json.RawMessage `json:"meta,omitempty"`
}

// Pair is a preference pair between two candidates.
type Pair struct {
	ID            int64   `json:"id"`
	UnitFP        string  `json:"unit_fp"`
	RunID         string  `json:"run_id"`
	ContextID     string  `json:"context_id"`
	Persona       string  `json:"persona"`
	ChosenID      int64   `json:"chosen_id"`
	RejectedID    int64   `json:"rejected_id"`
	ChosenScore   float64 `json:"chosen_score"`
	RejectedScore float64 `json:"rejected_score"`
	Margin        float64 `json:"margin"`
}

// TrainingStep is one logged optimizer step of a training unit. Nil fields
// were not logged.
type TrainingStep struct {
	ID       int64              `json:"id"`
	UnitFP   string             `json:"unit_fp"`
	RunID    string             `json:"run_id"`
	StageKey string             `json:"stage_key"`
	Step     int                `json:"step"`
	Epoch    float64            `json:"epoch"`
	Loss     *float64           `json:"loss,omitempty"`
	Reward   *float64           `json:"reward,omitempty"`
	KL       *float64           `json:"kl,omitempty"`
	LR       *float64           `json:"lr,omitempty"`
	GradNorm *float64           `json:"grad_norm,omitempty"`
	Values   map[string]float64 `json:"values,omitempty"` // anything else
	Time     time.Time          `json:"time,omitzero"`
}

// Artifact is a file a unit produced (checkpoint, adapter, plot).
type Artifact struct {
	ID     int64           `json:"id"`
	UnitFP string          `json:"unit_fp"`
	RunID  string          `json:"run_id"`
	Kind   string          `json:"kind"` // adapter | checkpoint | reward-model | plot | ...
	Path   string          `json:"path"`
	SHA256 string          `json:"sha256"`
	Bytes  int64           `json:"bytes"`
	Meta   json.RawMessage `json:"meta,omitempty"`
}

// LLMCall is one traced LLM request. Key is the cache key (normally the
// unit fingerprint plus the call's position); calls with a key are served
// from the cache on rerun.
type LLMCall struct {
	ID               int64           `json:"id"`
	Key              string          `json:"key,omitempty"`
	UnitFP           string          `json:"unit_fp,omitempty"`
	RunID            string          `json:"run_id,omitempty"`
	Role             string          `json:"role"`
	ModelID          string          `json:"model_id"`
	URL              string          `json:"url,omitempty"`
	Request          json.RawMessage `json:"request,omitempty"`
	Response         json.RawMessage `json:"response,omitempty"`
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
	Latency          time.Duration   `json:"latency"`
	Attempts         int             `json:"attempts"`
	Cached           bool            `json:"cached"`
	Error            string          `json:"error,omitempty"`
}
