package chat

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/dialogue"
	"mascot.dev/mascot/schema"
)

// Options choose what to talk to.
type Options struct {
	Stage  string // episodes stage of the run; "" = chosen (see the package doc)
	System string // mascot | mascot-p | mascot-c | a baseline; "" = mascot
	Roster string // roster of the run's config replacing the stage's; "" = the stage's
	Rounds int    // agent turns after each message; 0 = 1
}

// chatStage is what an episodes stage offers (runner/stages/episodes).
type chatStage interface {
	System() string
	Mode() string
	ChatSetup(ctx context.Context, system, roster string) (dialogue.Config, dialogue.Chatter, error)
}

// System is the trained system of one run, ready to converse.
type System struct {
	sess   *runner.Session
	store  *results.Store
	runID  string
	stage  string
	cfg    dialogue.Config
	ch     dialogue.Chatter
	rounds int
}

// Open reopens run runID (its resolved config is ropts.Loaded) and prepares
// the system to talk to. Close it to stop the endpoints it started.
func Open(ctx context.Context, ropts runner.Options, runID string, o Options) (*System, error) {
	sess, err := runner.OpenSession(ctx, ropts, runID)
	if err != nil {
		return nil, err
	}
	s := &System{sess: sess, store: ropts.Store, runID: runID, rounds: max(1, o.Rounds)}
	if err := s.prepare(ctx, ropts.Loaded.Experiment, o); err != nil {
		return nil, errors.Join(err, sess.Close())
	}
	return s, nil
}

// prepare picks the stage and builds its chat config.
func (s *System) prepare(ctx context.Context, exp *schema.Experiment, o Options) error {
	want := o.System
	if want == "" {
		want = dialogue.SystemMASCOT
	}
	if !slices.Contains(dialogue.Systems(), want) {
		return fmt.Errorf("unknown system %q (want one of %v)", want, dialogue.Systems())
	}
	keys := o.Stage
	var cands []string
	if keys != "" {
		cands = []string{keys}
	} else {
		for _, k := range sortedKeys(exp.Stages) {
			if exp.Stages[k].Kind == "episodes" {
				cands = append(cands, k)
			}
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("the run has no episodes stage to talk to")
	}
	type cand struct {
		key  string
		st   chatStage
		rank int
	}
	var best *cand
	for _, k := range cands {
		st, err := s.sess.Stage(ctx, k)
		if err != nil {
			return err
		}
		cs, ok := st.(chatStage)
		if !ok {
			return fmt.Errorf("stage %s (kind %s) does not hold conversations", k, exp.Stages[k].Kind)
		}
		r := rank(cs, want)
		if best == nil || r < best.rank {
			best = &cand{k, cs, r}
		}
	}
	system := ""
	if best.st.System() != want {
		system = want
	}
	cfg, ch, err := best.st.ChatSetup(ctx, system, o.Roster)
	if err != nil {
		return err
	}
	s.stage, s.cfg, s.ch = best.key, cfg, ch
	return nil
}

// rank orders stages for a wanted system: its own evaluation stage, its own
// stage, a directed evaluation stage, a directed stage, anything.
func rank(st chatStage, want string) int {
	r := 4
	switch {
	case st.System() == want:
		r = 0
	case dialogue.IsDirected(st.System()):
		r = 2
	}
	if st.Mode() != "eval" {
		r++
	}
	return r
}

// Stage is the episodes stage whose system this is.
func (s *System) Stage() string { return s.stage }

// Name is the system's name (mascot, a baseline, ...).
func (s *System) Name() string { return s.cfg.System }

// RunID is the run whose system this is.
func (s *System) RunID() string { return s.runID }

// Roster lists the agents who can speak: the roster of a directed system,
// none for a baseline (which answers with one voice).
func (s *System) Roster() dialogue.Roster {
	if !dialogue.IsDirected(s.cfg.System) {
		return nil
	}
	return s.cfg.Roster
}

// Close stops the endpoints the system started.
func (s *System) Close() error { return s.sess.Close() }

// New starts a conversation with a fresh id.
func (s *System) New() *Conversation {
	var b [4]byte
	_, _ = rand.Read(b[:])
	id := "chat-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
	return &Conversation{sys: s, id: id}
}

// unit is the ledger unit a conversation is stored under.
func (s *System) unit(convID string) results.Unit {
	h := sha256.Sum256([]byte("chat\x00" + s.runID + "\x00" + convID))
	return results.Unit{Fingerprint: hex.EncodeToString(h[:]), Kind: results.ChatStage, StageKey: results.ChatStage, RunID: s.runID}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
