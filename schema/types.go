package schema

import (
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
)

// Experiment is the decoded #Experiment.
type Experiment struct {
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Seed        int                 `json:"seed"`
	Datasets    map[string]Dataset  `json:"datasets"`
	Rosters     map[string]Roster   `json:"rosters"`
	Endpoints   map[string]Endpoint `json:"endpoints"`
	Judges      map[string]Judge    `json:"judges"`
	Metrics     map[string]Metric   `json:"metrics"`
	Rewards     map[string]Reward   `json:"rewards"`
	Stages      map[string]Stage    `json:"stages"`
	Executor    Executor            `json:"executor"`
	Sweep       *Sweep              `json:"sweep,omitempty"`
	Report      []string            `json:"report"`
	// Kinds are the stage kinds the experiment was loaded against.
	Kinds *Kinds `json:"-"`
}

// Executor is #Executor.
type Executor struct {
	Kind              string        `json:"kind"`
	DeviceSlots       int           `json:"device_slots"`
	MaxParallelStages int           `json:"max_parallel_stages"`
	Slurm             *SlurmOptions `json:"slurm,omitempty"`
}

// SlurmOptions is #SlurmOptions.
type SlurmOptions struct {
	Partition        string   `json:"partition,omitempty"`
	GPUs             int      `json:"gpus,omitempty"`
	CPUs             int      `json:"cpus,omitempty"`
	Mem              string   `json:"mem,omitempty"`
	Time             string   `json:"time,omitempty"`
	Account          string   `json:"account,omitempty"`
	QOS              string   `json:"qos,omitempty"`
	ArrayParallelism int      `json:"array_parallelism,omitempty"`
	ExtraArgs        []string `json:"extra_args"`
}

// Dataset is #Dataset.
type Dataset struct {
	Name  string `json:"name"`
	Path  string `json:"path,omitempty"`
	HFID  string `json:"hf_id,omitempty"`
	Split string `json:"split"`
	Limit int    `json:"limit,omitempty"`
	Seed  int    `json:"seed"`
	// Exclude names datasets whose samples this one never holds.
	Exclude []string `json:"exclude,omitempty"`
	Filters struct {
		Valence []string `json:"valence,omitempty"`
		Domain  []string `json:"domain,omitempty"`
		Emotion []string `json:"emotion,omitempty"`
	} `json:"filters"`
}

// Roster is #Roster.
type Roster struct {
	Description      string  `json:"description,omitempty"`
	Agents           []Agent `json:"agents"`
	DirectorTemplate string  `json:"director_template,omitempty"`
	SpeakerTemplate  string  `json:"speaker_template,omitempty"`
}

// Agent is #Agent.
type Agent struct {
	Name        string   `json:"name"`
	Role        string   `json:"role"`
	Description string   `json:"description"`
	Style       string   `json:"style"`
	Goals       []string `json:"goals"`
	Template    string   `json:"template,omitempty"`
}

// Endpoint is #Endpoint.
type Endpoint struct {
	Kind           string   `json:"kind"`
	URLs           []string `json:"urls"`
	Model          string   `json:"model"`
	APIKeyEnv      string   `json:"api_key_env,omitempty"`
	Concurrency    int      `json:"concurrency"`
	Timeout        string   `json:"timeout"`
	TotalTimeout   string   `json:"total_timeout"`
	Retries        int      `json:"retries"`
	SupportsN      bool     `json:"supports_n"`
	EnableThinking bool     `json:"enable_thinking"`
	Sampling       Sampling `json:"sampling"`
	ModelDir       string   `json:"model_dir,omitempty"`
	ModelStage     string   `json:"model_stage,omitempty"`
	// Server declares the Slurm server jobs of a slurm-server endpoint.
	Server *EndpointServer `json:"server,omitempty"`
}

// EndpointServer is #EndpointServer.
type EndpointServer struct {
	Command  []string     `json:"command"`
	Replicas int          `json:"replicas"`
	Slurm    SlurmOptions `json:"slurm"`
}

// Sampling is #Sampling.
type Sampling struct {
	Temperature       float64 `json:"temperature"`
	TopP              float64 `json:"top_p"`
	TopK              int     `json:"top_k"`
	MaxTokens         int     `json:"max_tokens"`
	RepetitionPenalty float64 `json:"repetition_penalty"`
	// TruncatePromptTokens: 0 sends nothing; see #Sampling.
	TruncatePromptTokens int `json:"truncate_prompt_tokens"`
}

// Judge is #Judge.
type Judge struct {
	Plugin        string          `json:"plugin"`
	Endpoint      string          `json:"endpoint,omitempty"`
	RubricVersion string          `json:"rubric_version"`
	Command       []string        `json:"command,omitempty"`
	SHA256        string          `json:"sha256,omitempty"`
	Env           []string        `json:"env,omitempty"`
	Options       json.RawMessage `json:"options"`
}

// Metric is #Metric.
type Metric struct {
	Plugin   string          `json:"plugin"`
	Endpoint string          `json:"endpoint,omitempty"`
	Command  []string        `json:"command,omitempty"`
	SHA256   string          `json:"sha256,omitempty"`
	Env      []string        `json:"env,omitempty"`
	Options  json.RawMessage `json:"options"`
}

// Reward is #Reward.
type Reward struct {
	Kind    string          `json:"kind"`
	Weight  float64         `json:"weight"`
	Stage   string          `json:"stage,omitempty"`
	Options json.RawMessage `json:"options"`
}

// Sweep is #Sweep.
type Sweep struct {
	Mode        string                       `json:"mode"`
	Axes        map[string][]json.RawMessage `json:"axes"`
	Seeds       []int                        `json:"seeds"`
	Show        []string                     `json:"show"`
	MaxParallel int                          `json:"max_parallel"`
	Search      Search                       `json:"search"`
}

// Search is #Search.
type Search struct {
	Strategy       string  `json:"strategy"`
	FirstContexts  int     `json:"first_contexts"`
	Growth         int     `json:"growth"`
	Metric         string  `json:"metric,omitempty"`
	Confidence     float64 `json:"confidence"`
	BudgetUnits    int     `json:"budget_units"`
	BudgetRequests int     `json:"budget_requests"`
}

// Stage is one entry of stages: its kind, the fields every kind shares,
// and the full resolved config for the kind's constructor to decode.
type Stage struct {
	Key         string          `json:"-"`
	Kind        string          `json:"kind"`
	After       []string        `json:"after"`
	Concurrency int             `json:"concurrency"`
	Executor    string          `json:"executor,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// Decode decodes the stage's full config into a kind-specific struct.
func (s Stage) Decode(into any) error {
	if err := json.Unmarshal(s.Raw, into); err != nil {
		return fmt.Errorf("decoding stage %s (%s): %w", s.Key, s.Kind, err)
	}
	return nil
}

func decode(v cue.Value) (*Experiment, error) {
	var e Experiment
	if err := v.Decode(&e); err != nil {
		return nil, err
	}
	for key, st := range e.Stages {
		raw, err := v.LookupPath(cue.MakePath(cue.Str("stages"), cue.Str(key))).MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding stage %s: %w", key, err)
		}
		st.Key, st.Raw = key, raw
		e.Stages[key] = st
	}
	return &e, nil
}

// Canonical renders a resolved value as JSON with sorted keys, the form
// fingerprints hash.
func Canonical(v cue.Value) ([]byte, error) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return CanonicalJSON(b)
}

// CanonicalJSON re-encodes JSON with sorted keys and no insignificant space.
func CanonicalJSON(b []byte) ([]byte, error) {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}
