package markers

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"mascot.dev/mascot/plugins/spec"
)

func scores(t *testing.T, j *Judge, it spec.Item) map[string]float64 {
	t.Helper()
	res, err := j.Score(context.Background(), []spec.Item{it})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if len(r.Diagnostics) > 0 {
		t.Fatalf("item %s: %v", it.ID, r.Diagnostics)
	}
	out := map[string]float64{}
	for _, s := range r.Scores {
		out[s.CriterionID] = s.Raw
	}
	return out
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func TestAgentCriteria(t *testing.T) {
	j := New()
	// Markers of the card: anchor, warm, calm, grounding (four letters or
	// more, not function words). The response uses calm and warm (2 of the
	// target 3); of its six content words, stay and t repeat within it and
	// calm repeats the context (3 of 6); t and t are fragments (2 of 6).
	it := spec.Item{ID: "c1", Kind: spec.KindCandidate, AgentName: "The Anchor", Persona: "Anchor: warm, calm and grounding",
		Context:  []spec.Turn{{Role: "user", Speaker: "user", Text: "Keep calm, they say."}},
		Response: "Stay calm, stay warm t t"}
	got := scores(t, j, it)
	if _, ok := got[DirectiveCompliance]; ok {
		t.Errorf("a candidate without a directive was scored on directive compliance: %v", got)
	}
	near(t, "persona_markers", got[PersonaMarkers], 1+4*2.0/3)
	near(t, "non_redundancy", got[NonRedundancy], 1+4*0.5)
	near(t, "well_formed", got[WellFormed], 1+4*4.0/6)

	// A turn that answered a directive: the directed agent spoke (half),
	// and used one of the two directive words it needs (validate,
	// feelings, warm: two suffice).
	d, _ := json.Marshal(spec.Directive{AgentName: "The Anchor", Action: "validate feelings", Tone: "warm"})
	it.Kind, it.Metadata = spec.KindTurn, map[string]string{spec.MetaDirective: string(d)}
	got = scores(t, j, it)
	near(t, "directive_compliance", got[DirectiveCompliance], 1+4*(0.5+0.25))
	it.AgentName = "The Beacon" // someone else spoke
	near(t, "directive_compliance (other agent)", scores(t, j, it)[DirectiveCompliance], 1+4*0.25)

	// Configured markers replace the card's; an empty response scores 1.
	if _, err := j.Configure(context.Background(), json.RawMessage(`{"markers": {"The Beacon": ["stay", "Warm"]}, "marker_target": 2}`)); err != nil {
		t.Fatal(err)
	}
	near(t, "persona_markers (configured)", scores(t, j, it)[PersonaMarkers], 5)
	it.Response = " ... "
	for id, v := range scores(t, j, it) {
		near(t, id+" (empty response)", v, 1)
	}
}

func TestEpisodeCriteria(t *testing.T) {
	j := New()
	cards, _ := json.Marshal(map[string]string{"A": "A: hope growth", "B": "B: calm", "C": "C: question"})
	ep := spec.Item{ID: "e1", Kind: spec.KindEpisode, Metadata: map[string]string{spec.MetaPersonas: string(cards)},
		Turns: []spec.Turn{
			{Role: "user", Speaker: "user", Text: "I failed the exam."},
			{Role: "agent", Speaker: "A", Text: "Growth takes hope", Directive: &spec.Directive{AgentName: "A", Action: "hope"}},
			{Role: "agent", Speaker: "A", Text: "exam hope t"},
			{Role: "agent", Speaker: "B", Text: "calm"},
		}}
	got := scores(t, j, ep)
	// Persona: turn 1 has growth and hope (2 of 3), turn 2 hope (1 of 3),
	// turn 3 calm (1 of 3). Non-redundancy: turn 1 none of 3 repeat;
	// turn 2 exam and hope repeat, t does not (2 of 3); turn 3 none.
	// Fragments: t in turn 2 (1 of 3). Directive: turn 1 only, the agent
	// spoke and used hope (its one word). Participation: A and B of the
	// three companions.
	want := map[string]float64{
		GroupPersonaMarkers:      (1 + 4*2.0/3 + 1 + 4*1.0/3 + 1 + 4*1.0/3) / 3,
		GroupNonRedundancy:       (5 + 1 + 4*1.0/3 + 5) / 3,
		GroupWellFormed:          (5 + 1 + 4*2.0/3 + 5) / 3,
		GroupDirectiveCompliance: 5,
		Participation:            1 + 4*2.0/3,
	}
	if len(got) != len(want) {
		t.Errorf("criteria %v, want %v", got, want)
	}
	for id, w := range want {
		near(t, id, got[id], w)
	}

	// Scoring is deterministic, and criteria restrict what is scored.
	if again := scores(t, j, ep); !reflect.DeepEqual(again, got) {
		t.Errorf("second scoring %v, first %v", again, got)
	}
	if _, err := j.Configure(context.Background(), json.RawMessage(`{"criteria": ["participation"]}`)); err != nil {
		t.Fatal(err)
	}
	if got := scores(t, j, ep); len(got) != 1 {
		t.Errorf("criteria [participation] scored %v", got)
	}
}

func TestBadInput(t *testing.T) {
	j := New()
	ds, err := j.Configure(context.Background(), json.RawMessage(`{"criteria": ["fidelity"], "marker_target": -1, "markers": {"A": [" "]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 || !spec.HasErrors(ds) {
		t.Errorf("diagnostics %v, want three errors (criterion, marker_target, markers.A)", ds)
	}
	res, err := j.Score(context.Background(), []spec.Item{
		{ID: "x", Kind: spec.KindComparison},
		{ID: "y", Kind: spec.KindEpisode, Turns: []spec.Turn{{Role: "user", Text: "hi"}}},
		{ID: "z", Kind: spec.KindTurn, Response: "hi", Metadata: map[string]string{spec.MetaDirective: "{"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if !spec.HasErrors(r.Diagnostics) || len(r.Scores) > 0 {
			t.Errorf("item %s: scores %v, diagnostics %v; want an error and no scores", r.ItemID, r.Scores, r.Diagnostics)
		}
	}
}

// TestSupportOrder: with stage_order, a conversation's agent turns count
// as kept when the first is the first stage's companion and none goes
// back to an earlier stage; without stage_order it is not scored.
func TestSupportOrder(t *testing.T) {
	j := New()
	if _, err := j.Configure(context.Background(), json.RawMessage(`{"criteria": ["support_order"], "stage_order": ["A", "B", "C"]}`)); err != nil {
		t.Fatal(err)
	}
	episode := func(speakers ...string) spec.Item {
		it := spec.Item{ID: "e", Kind: spec.KindEpisode, Turns: []spec.Turn{{Role: "user", Speaker: "user", Text: "I lost my job."}}}
		for _, s := range speakers {
			it.Turns = append(it.Turns, spec.Turn{Role: "agent", Speaker: s, Text: "that sounds hard"},
				spec.Turn{Role: "user", Speaker: "user", Text: "yes"})
		}
		return it
	}
	for _, c := range []struct {
		speakers []string
		kept     int
	}{
		{[]string{"A", "A", "B", "C"}, 4}, // in order, a stage may repeat
		{[]string{"B", "C"}, 1},           // not opened by the first stage
		{[]string{"A", "C", "B"}, 2},      // back from action to reframing
		{[]string{"A", "X", "B"}, 2},      // a companion stage_order does not name
		{[]string{"C"}, 0},
	} {
		got := scores(t, j, episode(c.speakers...))
		near(t, "support_order of "+strings.Join(c.speakers, ","), got[SupportOrder], 1+4*float64(c.kept)/float64(len(c.speakers)))
	}
	j = New()
	if got := scores(t, j, episode("A", "B")); func() bool { _, ok := got[SupportOrder]; return ok }() {
		t.Errorf("support_order scored without stage_order: %v", got)
	}
	ds, err := j.Configure(context.Background(), json.RawMessage(`{"stage_order": ["A", "A", ""]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || !spec.HasErrors(ds) {
		t.Errorf("diagnostics %v, want two errors (a repeated and an empty companion)", ds)
	}
}
