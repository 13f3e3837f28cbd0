package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/labels"
)

func TestEmpatheticDialoguesFixture(t *testing.T) {
	isolate(t)
	got, err := Load(Spec{Name: EmpatheticDialogues, Path: "testdata/ed_sample.csv"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, emotion, valence string
		turns                int
	}{
		{"hit:900_conv:1800", "lonely", labels.Negative, 4},
		{"hit:901_conv:1802", "proud", labels.Positive, 3},
		{"hit:902_conv:1804", "anticipating", labels.Neutral, 2},
		{"hit:903_conv:1806", "furious", labels.Negative, 3},
		{"hit:904_conv:1808", "grateful", labels.Positive, 2},
		{"hit:900_conv:1800#2", "nostalgic", labels.Neutral, 2}, // conv_id changed, so a new conversation
	}
	if len(got) != len(want) {
		t.Fatalf("%d conversations, want %d", len(got), len(want))
	}
	for i, w := range want {
		s := got[i]
		if s.ID != w.id || s.Emotion != w.emotion || s.Valence != w.valence || len(s.Context) != w.turns || s.Dataset != EmpatheticDialogues {
			t.Errorf("conversation %d = %s %s %s %d turns, want %+v", i, s.ID, s.Emotion, s.Valence, len(s.Context), w)
		}
	}
	first := got[0]
	if first.Situation != "After my roommate moved out, the apartment has felt very quiet in the evenings." {
		t.Errorf("situation not unescaped: %q", first.Situation)
	}
	if first.Context[0] != (Utterance{Speaker: Seeker, Text: "Since my roommate left, the evenings feel really empty."}) ||
		first.Context[1].Speaker != Supporter || first.Context[2].Speaker != Seeker ||
		first.Context[2].Text != "I call my sister sometimes, but mostly I just watch TV." {
		t.Errorf("turns = %+v", first.Context)
	}
	if first.Meta["selfeval"] != "4|4|5_3|4|4" || first.Meta["conv_id"] != "hit:900_conv:1800" {
		t.Errorf("meta = %v", first.Meta)
	}
	if got[4].Context[1].Text != "What a kind thing to do. Did you get to thank them?" {
		t.Errorf("row with an extra field: %q", got[4].Context[1].Text)
	}
	neg, err := Load(Spec{Name: EmpatheticDialogues, Path: "testdata", Split: "sample", Filters: Filters{Valence: []string{"negative"}}})
	if err == nil {
		t.Errorf("split sample should not match ed_sample.csv, got %d", len(neg))
	}
	neg, err = Load(Spec{Name: EmpatheticDialogues, Path: "testdata/ed_sample.csv", Filters: Filters{Valence: []string{"NEGATIVE", "positive"}}})
	if err != nil || len(neg) != 4 {
		t.Errorf("valence filter: %d, %v", len(neg), err)
	}
}

func TestEmpatheticDialoguesErrors(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ body, want string }{
		{"id,text\n1,hi\n", "line 1: not an Empathetic Dialogues CSV"},
		{strings.Join(edColumns, ",") + "\nc1,1,bored,p,1,hello,5|5|5,\n", `line 2: conversation c1: emotion "bored" is not one of the 32`},
		{strings.Join(edColumns, ",") + "\nc1,1,sad\n", "line 2: 3 fields, want at least 7"},
		{"", "empty file"},
	} {
		_, err := Load(Spec{Name: EmpatheticDialogues, Path: write("x.csv", c.body)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("body %q: err = %v, want %q", c.body, err, c.want)
		}
	}
}
