package dialogue

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"mascot.dev/mascot/schema"
)

// paperRoster loads the paper's persona roster personas.<name>, so that
// tests use the rosters of experiments/personas/personas.cue, the one
// definition of the paper's persona cards. The spec holds only the roster:
// this package sits below the stage kinds, so it loads with none.
func paperRoster(name string) Roster {
	dir, err := os.MkdirTemp("", "roster")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	src := "package spec\n\nimport \"mascot.dev/experiments/personas\"\n\nname: \"roster\"\nrosters: main: personas." + name + "\n"
	p := filepath.Join(dir, "spec.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		panic(err)
	}
	none, err := schema.NewKinds()
	if err != nil {
		panic(err)
	}
	l, err := schema.Load(p, none, schema.Options{})
	if err != nil {
		panic(fmt.Sprintf("loading personas.%s: %v", name, err))
	}
	r := l.Experiment.Rosters["main"]
	out := make(Roster, len(r.Agents))
	for i, a := range r.Agents {
		out[i] = Agent{Name: a.Name, Role: a.Role, Description: a.Description, Style: a.Style,
			Goals: a.Goals, PromptTemplate: a.Template}
	}
	return out
}

var (
	emotionalSupport = sync.OnceValue(func() Roster { return paperRoster("emotional_support") })
	meetings         = sync.OnceValue(func() Roster { return paperRoster("meetings") })
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
