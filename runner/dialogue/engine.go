package dialogue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner/datasets"
)

// engine is one episode's (or tree's) working set.
type engine struct {
	cfg     Config
	p       *prompts
	c       *caller
	sample  datasets.Sample
	meeting bool
	task    string
	transcr string
	agentT  map[string]*template.Template // per-agent speaker templates
	profile string                        // user profile description
	big5    *BigFive
	mbti    string
}

// line is one history entry.
type line struct{ Name, Text string }

// state is a conversation in progress; branching clones it.
type state struct {
	history    []line
	turns      []jsonl.Turn
	emotion    string
	trajectory []string
}

func (s *state) clone() *state {
	return &state{
		history:    append([]line(nil), s.history...),
		turns:      append([]jsonl.Turn(nil), s.turns...),
		emotion:    s.emotion,
		trajectory: append([]string(nil), s.trajectory...),
	}
}

// add appends a turn, giving it the next turn_idx, and extends the history.
func (s *state) add(t jsonl.Turn, name string) {
	t.TurnIdx = len(s.turns)
	s.turns = append(s.turns, t)
	s.history = append(s.history, line{name, t.Response})
}

// userLabels and supporterLabels normalise dataset speaker names.
var (
	userLabels      = map[string]bool{"seeker": true, "usr": true, "speaker": true, "user": true, "human": true}
	supporterLabels = map[string]bool{"supporter": true, "listener": true, "sys": true, "system": true, "assistant": true}
)

// newEngine validates cfg and prepares the prompts and the user profile.
func newEngine(ch Chatter, cfg Config, s datasets.Sample) (*engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating dialogue config: %w", err)
	}
	cfg = cfg.withDefaults()
	p, err := cfg.Templates.compile()
	if err != nil {
		return nil, err
	}
	if cfg.UnitKey == "" {
		cfg.UnitKey = s.Dataset + "/" + s.ID + "/" + cfg.System
	}
	if cfg.SeedKey == "" {
		cfg.SeedKey = cfg.UnitKey
	}
	e := &engine{cfg: cfg, p: p, sample: s, agentT: map[string]*template.Template{}}
	e.c = &caller{ch: ch, unit: cfg.UnitKey, seedUnit: cfg.SeedKey, seed: cfg.Seed, strict: cfg.Strict, together: cfg.Together, counters: &Counters{}}
	e.meeting = s.Dataset == "qmsum" || s.Query != ""
	for _, a := range cfg.Roster {
		if a.PromptTemplate == "" {
			continue
		}
		t, err := template.New("agent " + a.Name).Option("missingkey=zero").Parse(a.PromptTemplate)
		if err != nil {
			return nil, fmt.Errorf("parsing prompt template of agent %s: %w", a.Name, err)
		}
		e.agentT[a.Name] = t
	}
	e.task, err = p.render("task", PromptData{Sample: s, Meeting: e.meeting})
	if err != nil {
		return nil, err
	}
	if e.meeting {
		h := make([]line, len(s.Context))
		for i, u := range s.Context {
			h[i] = line{u.Speaker, u.Text}
		}
		e.transcr = renderHistory(h)
	}
	e.drawProfile()
	return e, nil
}

// drawProfile fixes the user's Big Five or MBTI profile (seeded per unit).
func (e *engine) drawProfile() {
	r := rngFor(e.cfg.Seed, e.cfg.SeedKey, "profile")
	switch e.cfg.UserSim.Profile {
	case ProfileBig5:
		b := RandomBigFive(r)
		if e.cfg.UserSim.BigFive != nil {
			b = *e.cfg.UserSim.BigFive
		}
		e.big5, e.profile = &b, b.Describe()
	case ProfileMBTI:
		t := strings.ToUpper(e.cfg.UserSim.MBTI)
		if t == "" {
			types := MBTITypes()
			t = types[r.IntN(len(types))]
		}
		e.mbti, e.profile = t, DescribeMBTI(t)
	}
}

// data is the template data common to every prompt of this episode.
func (e *engine) data(st *state) PromptData {
	return PromptData{Task: e.task, Sample: e.sample, Meeting: e.meeting, Roster: e.cfg.Roster,
		History: renderHistory(st.history), Transcript: e.transcr}
}

// renderHistory writes one "Name: text" line per entry (a meeting's
// transcript too).
func renderHistory(h []line) string {
	n := 0
	for _, l := range h {
		n += len(l.Name) + len(l.Text) + 3
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range h { // what fmt's "%s: %s\n" writes, without its reflection
		b.WriteString(l.Name)
		b.WriteString(": ")
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}

// open builds the initial state from the sample. It returns false when the
// sample has no usable context (the episode is skipped).
func (e *engine) open(ctx context.Context) (*state, bool, error) {
	st := e.opening()
	switch {
	case len(st.history) > 0:
		return st, true, nil
	case e.meeting || !e.cfg.UserSim.Enabled:
		return st, false, nil
	}
	// No context: the simulated user opens the conversation.
	ok, err := e.userSay(ctx, st, 0, "", "user-open")
	return st, ok, err
}

// opening is the state before any generated turn: the sample's context
// (a meeting's query) as the history.
func (e *engine) opening() *state {
	st := &state{emotion: e.sample.Emotion}
	if st.emotion == "" {
		st.emotion = "unknown"
	}
	st.trajectory = []string{st.emotion}
	if e.meeting {
		if strings.TrimSpace(e.sample.Query) != "" {
			st.history = append(st.history, line{"User", e.sample.Query})
		}
		return st
	}
	ctxTurns := e.sample.Context
	if n := e.cfg.ContextTurns; n > 0 && n < len(ctxTurns) {
		ctxTurns = ctxTurns[:n]
	}
	st.history = make([]line, 0, len(ctxTurns))
	for _, u := range ctxTurns {
		name := u.Speaker
		switch low := strings.ToLower(u.Speaker); {
		case userLabels[low]:
			name = "User"
		case supporterLabels[low]:
			name = "Supporter"
		}
		if strings.TrimSpace(u.Text) != "" {
			st.history = append(st.history, line{name, u.Text})
		}
	}
	return st
}

// episode assembles the export record from a finished state.
func (e *engine) episode(st *state) Episode {
	cfg := e.cfg
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	ep := Episode{
		Record: jsonl.Record{
			ConvID:       e.sample.ID,
			Turns:        st.turns,
			AgentsSpoken: countSpoken(st.turns),
			Metadata: jsonl.Metadata{
				SchemaVersion: jsonl.SchemaVersion, System: cfg.System, Dataset: e.sample.Dataset,
				PersonaSet:    pick(cfg.UserSim.Profile, personaNone),
				DirectorModel: pick(cfg.Models.Director, cfg.Director.Model),
				SpeakerModel:  pick(cfg.Models.Speaker, cfg.Speaker.Model),
				UserModel:     pick(cfg.Models.User, cfg.User.Model),
				RubricVersion: RubricVersion,
			},
		},
		Counters: *e.c.counters,
	}
	if cfg.System == SystemSFT {
		ep.Metadata.SpeakerModel = cfg.Baseline.SFTModel
	}
	if ep.Turns == nil {
		ep.Turns = []jsonl.Turn{}
	}
	if e.meeting {
		setMeeting(&ep.Record, e.sample)
	} else {
		setEmotions(&ep.Record, st.trajectory, e.big5, e.mbti)
	}
	return ep
}

// setMeeting gives a QMSum record its meeting keys: the sample's id beside
// conv_id, the start index and the meeting.
func setMeeting(r *jsonl.Record, s datasets.Sample) {
	id, _ := json.Marshal(s.ID) // a string always marshals
	start, meeting := s.StartIdx, s.Meeting
	r.StartIdx, r.Meeting = &start, &meeting
	r.Extra = map[string]json.RawMessage{"id": id}
}

// setEmotions gives an emotional-support record its emotion keys: the
// first and last of the trajectory, the trajectory, and the user's Big
// Five profile (null without one) and MBTI type (when it has one).
func setEmotions(r *jsonl.Record, trajectory []string, big5 *BigFive, mbti string) {
	first, last := trajectory[0], trajectory[len(trajectory)-1]
	r.InitialEmotion, r.FinalEmotion = &first, &last
	r.EmotionTrajectory, _ = json.Marshal(trajectory) // strings always marshal
	r.Extra = map[string]json.RawMessage{}
	if big5 != nil {
		r.UserBigFive, _ = json.Marshal(big5)
	} else {
		r.Extra["user_big_five"] = json.RawMessage("null")
	}
	if mbti != "" {
		r.Extra["user_mbti"] = jsonl.AppendString(nil, mbti)
	}
}
