package dialogue

import (
	"fmt"
	"slices"
)

// Systems: MASCOT, its ablations and the baselines.
const (
	SystemMASCOT          = "mascot"
	SystemMASCOTP         = "mascot-p"
	SystemMASCOTC         = "mascot-c"
	SystemZeroShot        = "zero-shot"
	SystemZeroShotCoT     = "zero-shot-cot"
	SystemFewShot         = "few-shot"
	SystemFewShotCoT      = "few-shot-cot"
	SystemSFT             = "sft"
	SystemSelfConsistency = "self-consistency"
	SystemMultiAgentESC   = "multiagent-esc"
)

// Systems lists every system name RunEpisode accepts.
func Systems() []string {
	return []string{SystemMASCOT, SystemMASCOTP, SystemMASCOTC, SystemZeroShot, SystemZeroShotCoT,
		SystemFewShot, SystemFewShotCoT, SystemSFT, SystemSelfConsistency, SystemMultiAgentESC}
}

// IsDirected reports whether system uses the Director and the roster.
func IsDirected(system string) bool {
	return system == SystemMASCOT || system == SystemMASCOTP || system == SystemMASCOTC
}

// Defaults applied when a field is zero.
const (
	DefaultTurns            = 5
	DefaultReplyProb        = 0.5
	DefaultFewShotK         = 3
	DefaultSelfConsistencyN = 5
	DefaultESCDeliberators  = 3
	DefaultESCRetrieveK     = 3
	DefaultMaxTreeNodes     = 4096
)

// Config configures RunEpisode and RunBranching.
type Config struct {
	System string `json:"system"`
	Roster Roster `json:"roster"`
	Turns  int    `json:"turns"` // rounds; 0 = DefaultTurns
	// ContextTurns keeps only the first N utterances of an emotional-support
	// sample's context as the opening history (0 = all). ESConv samples
	// carry the whole recorded dialogue; 1 keeps the seeker's opening.
	ContextTurns int    `json:"context_turns"`
	Seed         int64  `json:"seed"`
	UnitKey      string `json:"unit_key"` // cache-key prefix; "" = "<dataset>/<sample id>/<system>"
	Strict       bool   `json:"strict"`
	// Together sends a unit's single requests for several draws (k without
	// supports_n) at once instead of one after another, so that a stage
	// with fewer units than the endpoint's slots takes one request's time
	// per unit instead of k; strict mode keeps them in turn, so that
	// nothing is sent after a failure. The Chatter must take concurrent
	// calls whose answers depend on their requests alone (llm's client
	// behind stagekit.Router: a request's cache key and seed fix it). A
	// stage whose units fill the slots anyway leaves it off: with 600 units
	// of 4 against 64 slots the requests waiting together cost it a fifth
	// more CPU per request (docs/benchmarks.md). Not part of any stored or
	// fingerprinted form: it changes no request, only when each goes out.
	Together  bool           `json:"-"`
	SupportsN bool           `json:"supports_n"` // the server honours n > 1
	Director  Sampling       `json:"director"`
	Speaker   Sampling       `json:"speaker"`
	User      Sampling       `json:"user"`
	Models    ModelNames     `json:"models"` // written into metadata
	UserSim   UserConfig     `json:"user_sim"`
	Templates Templates      `json:"templates"`
	Baseline  BaselineConfig `json:"baseline"`
	Branching BranchConfig   `json:"branching"`
	// SeedKey, when set, replaces UnitKey in every seed and random
	// decision (request seeds, user coins, fallback agents), so that two
	// runs cached apart (a policy before and after training) face the
	// same draws.
	SeedKey string `json:"seed_key,omitempty"`
}

// ModelNames are the model ids recorded in metadata. Empty names fall back
// to the role's Sampling.Model.
type ModelNames struct {
	Director string `json:"director"`
	Speaker  string `json:"speaker"`
	User     string `json:"user"`
}

// UserConfig configures the simulated user.
type UserConfig struct {
	Enabled   bool     `json:"enabled"`
	ReplyProb *float64 `json:"reply_prob,omitempty"` // nil = DefaultReplyProb
	Profile   string   `json:"profile"`              // "" | big5 | mbti
	BigFive   *BigFive `json:"big_five,omitempty"`   // fixed profile; nil = seeded draw
	MBTI      string   `json:"mbti,omitempty"`       // fixed type; "" = seeded draw
}

// BaselineConfig configures the baselines.
type BaselineConfig struct {
	Examples         *ExamplePool `json:"-"`                  // few-shot and multiagent-esc retrieval
	FewShotK         int          `json:"few_shot_k"`         // 0 = DefaultFewShotK
	SelfConsistencyN int          `json:"self_consistency_n"` // 0 = DefaultSelfConsistencyN
	SFTModel         string       `json:"sft_model"`          // adapter alias for system sft
	ESC              ESCConfig    `json:"esc"`
}

// ESCConfig configures multiagent-esc.
type ESCConfig struct {
	Deliberators int    `json:"deliberators"`   // 0 = DefaultESCDeliberators
	RetrieveK    int    `json:"retrieve_k"`     // 0 = DefaultESCRetrieveK
	TieBreakRole string `json:"tie_break_role"` // "" = speaker
}

// BranchConfig configures RunBranching.
type BranchConfig struct {
	K        int   `json:"k"`         // candidate directives per branch point (>= 1)
	Rounds   []int `json:"rounds"`    // branch rounds; nil = every round
	MaxNodes int   `json:"max_nodes"` // refuse larger trees; 0 = DefaultMaxTreeNodes
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.Turns == 0 {
		c.Turns = DefaultTurns
	}
	if c.Baseline.FewShotK == 0 {
		c.Baseline.FewShotK = DefaultFewShotK
	}
	if c.Baseline.SelfConsistencyN == 0 {
		c.Baseline.SelfConsistencyN = DefaultSelfConsistencyN
	}
	if c.Baseline.ESC.Deliberators == 0 {
		c.Baseline.ESC.Deliberators = DefaultESCDeliberators
	}
	if c.Baseline.ESC.RetrieveK == 0 {
		c.Baseline.ESC.RetrieveK = DefaultESCRetrieveK
	}
	if c.Baseline.ESC.TieBreakRole == "" {
		c.Baseline.ESC.TieBreakRole = RoleSpeaker
	}
	if c.Branching.MaxNodes == 0 {
		c.Branching.MaxNodes = DefaultMaxTreeNodes
	}
	return c
}

// replyProb is the user reply probability.
func (u UserConfig) replyProb() float64 {
	if u.ReplyProb == nil {
		return DefaultReplyProb
	}
	return *u.ReplyProb
}

// Validate reports configuration errors (after defaults).
func (c Config) Validate() error {
	c = c.withDefaults()
	if !slices.Contains(Systems(), c.System) {
		return fmt.Errorf("unknown system %q (want one of %v)", c.System, Systems())
	}
	if IsDirected(c.System) {
		if err := c.Roster.Validate(); err != nil {
			return fmt.Errorf("validating roster: %w", err)
		}
	}
	if c.ContextTurns < 0 {
		return fmt.Errorf("context_turns must not be negative, got %d", c.ContextTurns)
	}
	if c.Turns < 0 {
		return fmt.Errorf("turns must be positive, got %d", c.Turns)
	}
	if p := c.UserSim.replyProb(); p < 0 || p > 1 {
		return fmt.Errorf("user reply probability %v is outside [0, 1]", p)
	}
	switch c.UserSim.Profile {
	case ProfileNone, ProfileBig5:
	case ProfileMBTI:
		if c.UserSim.MBTI != "" && !ValidMBTI(c.UserSim.MBTI) {
			return fmt.Errorf("unknown MBTI type %q", c.UserSim.MBTI)
		}
	default:
		return fmt.Errorf("unknown user profile kind %q (want big5 or mbti)", c.UserSim.Profile)
	}
	if c.System == SystemSFT && c.Baseline.SFTModel == "" {
		return fmt.Errorf("system sft needs baseline.sft_model (the adapter alias)")
	}
	if c.Baseline.SelfConsistencyN < 1 || c.Baseline.ESC.Deliberators < 1 {
		return fmt.Errorf("self_consistency_n and esc.deliberators must be at least 1")
	}
	return c.Templates.Validate()
}
