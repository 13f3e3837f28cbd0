package prompts

import (
	"regexp"
	"strings"
	"testing"
)

// TestPaperRubric: the embedded rubric decodes to the paper's five
// per-agent and four collective criteria, in the paper's order.
func TestPaperRubric(t *testing.T) {
	r := Paper()
	if r.Version != "paper_v1" {
		t.Errorf("version %q", r.Version)
	}
	var agent, coll []string
	for _, c := range r.Agent {
		agent = append(agent, c.Name)
		if c.Level != LevelAgent {
			t.Errorf("%s: level %q", c.ID, c.Level)
		}
	}
	for _, c := range r.Collective {
		coll = append(coll, c.Name)
		if c.Level != LevelCollective {
			t.Errorf("%s: level %q", c.ID, c.Level)
		}
	}
	wantAgent := "Emotional Expressiveness|Empathetic Support Quality|Consistency (Persona)|Response Relevance|Social Contribution"
	wantColl := "Fidelity|Originality & Specificity|Relevance & Coherence|Engagement & Contribution"
	if got := strings.Join(agent, "|"); got != wantAgent {
		t.Errorf("agent criteria %s, want %s", got, wantAgent)
	}
	if got := strings.Join(coll, "|"); got != wantColl {
		t.Errorf("collective criteria %s, want %s", got, wantColl)
	}
	for _, c := range r.All() {
		for i, a := range c.Anchors {
			if a == "" {
				t.Errorf("%s: anchor %d empty", c.ID, i+1)
			}
		}
	}
	if c, ok := r.Lookup("persona_consistency"); !ok || c.Level != LevelAgent {
		t.Errorf("lookup persona_consistency: %+v %v", c, ok)
	}
}

// TestDecodeErrorsArePositioned: a rubric missing an anchor fails with the
// file, line and column.
func TestDecodeErrorsArePositioned(t *testing.T) {
	src := []byte(`rubric_version: "x"
#Criterion: {id: string, name: string, description: string, anchors: [string, string, string, string, string]}
agent_criteria: [...#Criterion] & [{id: "a", name: "A", description: "d", anchors: ["1", "2", "3", "4"]}]
collective_criteria: [...#Criterion] & [{id: "b", name: "B", description: "d", anchors: ["1", "2", "3", "4", "5"]}]
`)
	_, err := Decode("bad.cue", src)
	if err == nil || !regexp.MustCompile(`anchors: .*\n\s*bad\.cue:\d+:\d+`).MatchString(err.Error()) {
		t.Fatalf("error %v, want the anchors at bad.cue:LINE:COL", err)
	}
	dup := []byte(`rubric_version: "x"
agent_criteria: [{id: "a", name: "A", description: "d", anchors: ["1", "2", "3", "4", "5"]}]
collective_criteria: [{id: "a", name: "B", description: "d", anchors: ["1", "2", "3", "4", "5"]}]
`)
	if _, err := Decode("dup.cue", dup); err == nil || !strings.Contains(err.Error(), `"a" appears twice`) {
		t.Fatalf("duplicate id: %v", err)
	}
}
