package episodes

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/schema"
)

// Modes of the stage, stored as Episode.Mode; results decides from them
// which episodes are training-time (results.TrainingModes).
const (
	ModeIndependent = results.ModeIndependent
	ModeBranching   = results.ModeBranching
	ModeEval        = results.ModeEval
)

// Config is #Episodes.
type Config struct {
	Mode                    string          `json:"mode"`
	Dataset                 string          `json:"dataset"`
	Roster                  string          `json:"roster"`
	System                  string          `json:"system"`
	Turns                   int             `json:"turns"`
	UserResponseProbability float64         `json:"user_response_probability"`
	PersonaSet              string          `json:"persona_set"`
	MBTITypes               []string        `json:"mbti_types"`
	BranchK                 int             `json:"branch_k"`
	BranchDepth             int             `json:"branch_depth"`
	SamplesPerContext       int             `json:"samples_per_context"`
	SelfConsistencySamples  int             `json:"self_consistency_samples"`
	Director                string          `json:"director"`
	Speaker                 string          `json:"speaker"`
	User                    string          `json:"user"`
	SpeakerAdapter          string          `json:"speaker_adapter,omitempty"`
	DirectorAdapter         string          `json:"director_adapter,omitempty"`
	SFTAdapter              string          `json:"sft_adapter,omitempty"`
	FewShotExamples         int             `json:"few_shot_examples"`
	Sampling                schema.Sampling `json:"sampling"`
	// DirectorSampling, when set, is the Director's (its JSON directive
	// may need a larger budget than the turns).
	DirectorSampling *schema.Sampling `json:"director_sampling,omitempty"`
}

// withDefaults fills what CUE would have filled, for configs built in Go.
func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeIndependent
	}
	if c.System == "" {
		c.System = dialogue.SystemMASCOT
	}
	if c.Turns == 0 {
		c.Turns = dialogue.DefaultTurns
	}
	if c.PersonaSet == "" {
		c.PersonaSet = "default"
	}
	if c.SamplesPerContext == 0 {
		c.SamplesPerContext = 1
	}
	if c.BranchDepth == 0 {
		c.BranchDepth = 1
	}
	if c.Director == "" {
		c.Director = dialogue.RoleDirector
	}
	if c.Speaker == "" {
		c.Speaker = dialogue.RoleSpeaker
	}
	if c.User == "" {
		c.User = dialogue.RoleUser
	}
	return c
}

// validate checks what the dialogue config cannot.
func (c Config) validate() error {
	switch c.Mode {
	case ModeIndependent, ModeEval:
	case ModeBranching:
		if !dialogue.IsDirected(c.System) {
			return fmt.Errorf("mode branching needs a directed system (mascot, mascot-p, mascot-c), got %q", c.System)
		}
		if c.BranchK < 1 {
			return fmt.Errorf("branch_k must be at least 1, got %d", c.BranchK)
		}
	default:
		return fmt.Errorf("unknown mode %q (want independent, branching or eval)", c.Mode)
	}
	switch c.PersonaSet {
	case "default", dialogue.ProfileBig5, dialogue.ProfileMBTI:
	default:
		return fmt.Errorf("unknown persona_set %q (want default, big5 or mbti)", c.PersonaSet)
	}
	for _, t := range c.MBTITypes {
		if !dialogue.ValidMBTI(t) {
			return fmt.Errorf("unknown MBTI type %q in mbti_types", t)
		}
	}
	if c.System == dialogue.SystemSFT && c.SFTAdapter == "" {
		return fmt.Errorf("system sft needs sft_adapter (a training stage)")
	}
	return nil
}

// profile returns the user profile kind for dialogue.UserConfig.
func (c Config) profile() string {
	if c.PersonaSet == "default" {
		return dialogue.ProfileNone
	}
	return c.PersonaSet
}

// userFor fixes the simulated user of one context: the same profile for
// every system and sample index, drawn from the experiment seed.
func (c Config) userFor(expSeed int64, s datasets.Sample) dialogue.UserConfig {
	p := c.UserResponseProbability
	u := dialogue.UserConfig{Enabled: p > 0, ReplyProb: &p, Profile: c.profile()}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s/user", expSeed, s.Dataset, s.ID)
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(expSeed)))
	switch u.Profile {
	case dialogue.ProfileBig5:
		b := dialogue.RandomBigFive(r)
		u.BigFive = &b
	case dialogue.ProfileMBTI:
		types := c.MBTITypes
		if len(types) == 0 {
			types = dialogue.MBTITypes()
		}
		u.MBTI = types[r.IntN(len(types))]
	}
	return u
}

// branchRounds are the rounds that branch: the first branch_depth rounds.
func (c Config) branchRounds() []int {
	n := min(c.BranchDepth, c.Turns)
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// needsExamples reports whether the system draws dataset examples.
func needsExamples(system string) bool {
	switch system {
	case dialogue.SystemFewShot, dialogue.SystemFewShotCoT, dialogue.SystemMultiAgentESC:
		return true
	}
	return false
}

// sameMeeting reports whether two samples are queries about the same
// meeting: a few-shot example must not answer another question about the
// very meeting the user asks about (its reference answer would leak what
// the test expects).
func sameMeeting(a, b datasets.Sample) bool {
	return a.Meeting != "" && a.Meeting == b.Meeting
}

// contextTurns keeps the seeker's opening line of ESConv contexts, which
// hold the whole recorded dialogue.
func contextTurns(s datasets.Sample) int {
	if s.Dataset == "esconv" {
		return 1
	}
	return 0
}
