package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// HumanSpeaker is how the person is named in the conversation.
const HumanSpeaker = "User"

// Turn is one turn of a conversation.
type Turn struct {
	Speaker   string           `json:"speaker"` // an agent, or HumanSpeaker
	Human     bool             `json:"human"`
	Text      string           `json:"text"`
	Directive *jsonl.Directive `json:"directive,omitempty"` // the Director's, for directed systems
}

// Conversation is one conversation with a System. It is not safe for
// concurrent use.
type Conversation struct {
	sys       *System
	id        string
	turns     []Turn
	episodeID int64
	counters  dialogue.Counters
}

// ErrNoReply is returned when the system produced no turn for a message.
var ErrNoReply = errors.New("the system produced no reply")

// ID is the conversation's conv_id.
func (c *Conversation) ID() string { return c.id }

// Turns returns the conversation so far.
func (c *Conversation) Turns() []Turn { return append([]Turn(nil), c.turns...) }

// EpisodeID is the stored episode's id (0 before the first save).
func (c *Conversation) EpisodeID() int64 { return c.episodeID }

// Say adds the person's message and lets the system answer, calling emit
// with each agent turn as soon as it is generated, then saves the
// conversation. On failure the message and any partial answer are taken
// back, so it can be sent again.
func (c *Conversation) Say(ctx context.Context, text string, emit func(Turn)) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return fmt.Errorf("an empty message")
	}
	mark := len(c.turns)
	c.turns = append(c.turns, Turn{Speaker: HumanSpeaker, Human: true, Text: text})
	for range c.sys.rounds {
		t, err := c.round(ctx)
		if err != nil {
			c.turns = c.turns[:mark]
			return err
		}
		c.turns = append(c.turns, t)
		if emit != nil {
			emit(t)
		}
	}
	return c.Save(ctx)
}

// round runs the engine for one round over the conversation so far.
func (c *Conversation) round(ctx context.Context) (Turn, error) {
	smp := datasets.Sample{ID: c.id, Dataset: "chat"}
	h := sha256.New()
	for _, t := range c.turns {
		sp := t.Speaker
		if t.Human {
			sp = "user"
		}
		smp.Context = append(smp.Context, datasets.Utterance{Speaker: sp, Text: t.Text})
		fmt.Fprintf(h, "%s\x00%s\x00", sp, t.Text)
	}
	cfg := c.sys.cfg
	cfg.Turns = 1
	cfg.UnitKey = "chat/" + c.sys.runID + "/" + c.sys.stage + "/" + hex.EncodeToString(h.Sum(nil))[:32]
	ep, err := dialogue.RunEpisode(ctx, c.sys.ch, cfg, smp)
	c.counters.Add(ep.Counters)
	if err != nil {
		return Turn{}, fmt.Errorf("generating a reply: %w", err)
	}
	if len(ep.Turns) == 0 {
		return Turn{}, fmt.Errorf("%w (%d failed and %d empty generations; see the endpoint's log)", ErrNoReply,
			ep.Counters.NumGenerationFailures, ep.Counters.NumEmptyResponses)
	}
	t := ep.Turns[len(ep.Turns)-1]
	return Turn{Speaker: t.AgentName, Text: t.Response, Directive: t.Directive}, nil
}

// Undo takes back the person's last message and what followed it. It
// reports whether there was one, and saves the shortened conversation.
func (c *Conversation) Undo(ctx context.Context) (bool, error) {
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].Human {
			c.turns = c.turns[:i]
			if c.episodeID == 0 {
				return true, nil
			}
			return true, c.Save(ctx)
		}
	}
	return false, nil
}

// Save stores the conversation as its episode (see the package doc).
func (c *Conversation) Save(ctx context.Context) error {
	if c.sys.store == nil {
		return fmt.Errorf("saving conversation %s: no results store", c.id)
	}
	id, err := c.sys.store.SaveChat(ctx, c.sys.unit(c.id), c.episode())
	if err != nil {
		return err
	}
	c.episodeID = id
	return nil
}

// episode is the stored form of the conversation.
func (c *Conversation) episode() results.Episode {
	cfg := c.sys.cfg
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	e := results.Episode{System: cfg.System, Dataset: "chat", Record: jsonl.Record{ConvID: c.id,
		AgentsSpoken: map[string]int{},
		Metadata: jsonl.Metadata{SchemaVersion: jsonl.SchemaVersion, System: cfg.System, Dataset: "chat",
			PersonaSet: "human", DirectorModel: pick(cfg.Models.Director, cfg.Director.Model),
			SpeakerModel: pick(cfg.Models.Speaker, cfg.Speaker.Model), UserModel: "human",
			RubricVersion: dialogue.RubricVersion},
		Extra: map[string]json.RawMessage{"chat_stage": mustString(c.sys.stage)}}}
	round := 0
	for i, t := range c.turns {
		r := round
		row := jsonl.Turn{TurnIdx: i, RoundID: &r, Response: t.Text}
		if t.Human {
			row.TurnType, row.Extra = dialogue.TurnUser, results.HumanExtra()
			round++
		} else {
			row.AgentName = t.Speaker
			e.AgentsSpoken[t.Speaker]++
			if d := t.Directive; d != nil {
				dd := *d
				row.Directive = &dd
			}
		}
		e.Turns = append(e.Turns, row)
	}
	return e
}

func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// System is the name of the system the conversation is with.
func (c *Conversation) System() string { return c.sys.Name() }
