package dialogue

import (
	"context"
	"fmt"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner/datasets"
)

// CandidateConfig configures GenerateCandidates.
type CandidateConfig struct {
	K int `json:"k"` // responses per (context, persona)
	// ContextTurns is as in Config: the first N context utterances (0 = all).
	ContextTurns int       `json:"context_turns"`
	Seed         int64     `json:"seed"`       // request seeds derive from it
	UnitKey      string    `json:"unit_key"`   // "" = "<dataset>/<sample id>/candidates/<agent>"
	Strict       bool      `json:"strict"`     // return the first failure
	Together     bool      `json:"-"`          // as in Config
	SupportsN    bool      `json:"supports_n"` // one request with n = K
	Generic      bool      `json:"generic"`    // generic speaker prompt (no persona card)
	Speaker      Sampling  `json:"speaker"`
	Roster       Roster    `json:"roster"` // the group the agent belongs to (template data)
	Templates    Templates `json:"templates"`
	// Directive, when set, is shown to the Speaker as the Director's
	// instruction; nil asks for a free in-persona reply.
	Directive *jsonl.Directive `json:"directive,omitempty"`
}

// Candidate is one sampled Speaker response.
type Candidate struct {
	Index    int    `json:"index"` // sample index (stable across reruns)
	Response string `json:"response"`
}

// CandidateSet holds the K responses of one (context, persona) with the
// exact prompt they answer (the GRPO/reward-model training prompt).
type CandidateSet struct {
	SampleID   string        `json:"sample_id"`
	AgentName  string        `json:"agent_name"`
	Prompt     []llm.Message `json:"prompt"`
	Candidates []Candidate   `json:"candidates"`
	Counters   Counters      `json:"-"`
	Skipped    bool          `json:"-"`
	// LastError is the last failed draw's error (tolerant mode), so that
	// a set left without candidates can say why.
	LastError error `json:"-"`
}

// GenerateCandidates samples cfg.K Speaker responses for agent a on the
// context of sample s: one request with n = K when cfg.SupportsN, else K
// requests with distinct sample indexes (and so distinct seeds and cache
// keys). Failed and empty draws are counted and dropped (tolerant) or
// returned as errors (strict); Candidate.Index keeps the draw's position.
func GenerateCandidates(ctx context.Context, ch Chatter, cfg CandidateConfig, s datasets.Sample, a Agent) (CandidateSet, error) {
	if cfg.K < 1 {
		return CandidateSet{}, fmt.Errorf("candidates: k must be at least 1, got %d", cfg.K)
	}
	roster := cfg.Roster
	if roster.Find(a.Name) < 0 {
		roster = append(append(Roster(nil), roster...), a)
	}
	unit := cfg.UnitKey
	if unit == "" {
		unit = s.Dataset + "/" + s.ID + "/candidates/" + a.Name
	}
	system := SystemMASCOT
	if cfg.Generic {
		system = SystemMASCOTP
	}
	e, err := newEngine(ch, Config{System: system, Roster: roster, Turns: 1, ContextTurns: cfg.ContextTurns, Seed: cfg.Seed, UnitKey: unit,
		Strict: cfg.Strict, Together: cfg.Together, SupportsN: cfg.SupportsN, Speaker: cfg.Speaker, Templates: cfg.Templates}, s)
	if err != nil {
		return CandidateSet{}, err
	}
	set := CandidateSet{SampleID: s.ID, AgentName: a.Name, Candidates: make([]Candidate, 0, cfg.K)}
	st, ok, err := e.open(ctx)
	if err != nil || !ok {
		e.c.counters.NumSkippedSamples++
		set.Counters, set.Skipped = *e.c.counters, true
		if err == nil && cfg.Strict {
			err = fmt.Errorf("generating candidates for %s: %w", s.ID, ErrSkippedSample)
		}
		return set, err
	}
	set.Prompt, err = e.speakerPrompt(st, a, cfg.Directive, cfg.Generic)
	if err != nil {
		return set, err
	}
	texts, oks, _, err := e.c.many(ctx, RoleSpeaker, cfg.Speaker, Pos{Step: "candidate"}, set.Prompt, nil, "", cfg.K, cfg.SupportsN)
	if err != nil {
		set.Counters = *e.c.counters
		return set, err
	}
	for i, t := range texts {
		if !oks[i] {
			continue
		}
		if t == "" {
			if err := e.c.empty(fmt.Sprintf("candidate %d", i)); err != nil {
				set.Counters = *e.c.counters
				return set, err
			}
			continue
		}
		set.Candidates = append(set.Candidates, Candidate{Index: i, Response: t})
	}
	set.Counters, set.LastError = *e.c.counters, e.c.lastErr
	return set, nil
}
