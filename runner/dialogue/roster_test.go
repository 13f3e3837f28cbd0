package dialogue

import (
	"fmt"
	"sync"

	_ "mascot.dev/mascot/runner/stages/decls" // the stage kinds the paper experiments use
	"mascot.dev/mascot/schema"
)

// paperRoster loads roster "main" of an embedded paper experiment, so that
// tests use the rosters of experiments/personas/personas.cue, the one
// definition of the paper's persona cards.
func paperRoster(experiment string) Roster {
	l, err := schema.Load(experiment, schema.Options{Tags: []string{"vllm=http://127.0.0.1:1/v1", "judge=http://127.0.0.1:1/v1"}})
	if err != nil {
		panic(fmt.Sprintf("loading %s: %v", experiment, err))
	}
	r, ok := l.Experiment.Rosters["main"]
	if !ok {
		panic(fmt.Sprintf("%s has no roster main", experiment))
	}
	out := make(Roster, len(r.Agents))
	for i, a := range r.Agents {
		out[i] = Agent{Name: a.Name, Role: a.Role, Description: a.Description, Style: a.Style,
			Goals: a.Goals, PromptTemplate: a.Template}
	}
	return out
}

var (
	emotionalSupport = sync.OnceValue(func() Roster { return paperRoster("paper/empathetic") })
	meetings         = sync.OnceValue(func() Roster { return paperRoster("paper/qmsum") })
)

// EmotionalSupportRoster returns the paper's emotional-support roster
// (personas.emotional_support: The Anchor, The Catalyst, The Beacon), a
// fresh copy per call.
func EmotionalSupportRoster() Roster { return clone(emotionalSupport()) }

// MeetingRoster returns the paper's QMSum roster (personas.meetings), a
// fresh copy per call.
func MeetingRoster() Roster { return clone(meetings()) }

func clone(r Roster) Roster {
	out := make(Roster, len(r))
	for i, a := range r {
		a.Goals = append([]string(nil), a.Goals...)
		out[i] = a
	}
	return out
}
