package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/labels"
)

func TestFailedESConv(t *testing.T) {
	isolate(t)
	got, err := Load(Spec{Name: ESConv, Path: filepath.Join(sharedDatasets(t), "esconv", "FailedESConv.json")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 196 {
		t.Fatalf("%d dialogues, want 196", len(got))
	}
	emotions := map[string]int{}
	turns, seekers, strategies := 0, 0, 0
	for _, s := range got {
		emotions[s.Emotion]++
		if s.Dataset != ESConv || s.Valence != labels.Negative || s.Problem == "" || s.Situation == "" || s.Meta["speakers"] != "speaker/listener" {
			t.Fatalf("sample %s: %+v", s.ID, s)
		}
		for _, u := range s.Context {
			turns++
			switch u.Speaker {
			case Seeker:
				seekers++
				if u.Strategy != "" {
					t.Fatalf("%s: seeker turn with strategy %q", s.ID, u.Strategy)
				}
			case Supporter:
				if u.Strategy != "" {
					strategies++
				}
			default:
				t.Fatalf("%s: speaker %q not normalised", s.ID, u.Speaker)
			}
		}
	}
	if turns != 5230 || seekers != 2853 || strategies != 5230-2853 {
		t.Errorf("turns %d, seeker %d, with strategy %d; want 5230, 2853, 2377", turns, seekers, strategies)
	}
	if emotions["depression"] != 56 || emotions["sadness"] != 50 || emotions["anxiety"] != 42 || emotions["nervousness"] != 2 {
		t.Errorf("emotions = %v", emotions)
	}
	first := got[0]
	if first.ID != "FailedESConv-0" || first.Emotion != "depression" || first.Problem != "ongoing depression" ||
		first.Situation != "General depression made worse by the ongoing pandemic in my country." ||
		first.Context[0] != (Utterance{Speaker: Seeker, Text: "Hey there"}) ||
		first.Context[2] != (Utterance{Speaker: Supporter, Text: "hi", Strategy: "Other"}) ||
		first.Meta["experience_type"] != "Current Experience" || first.Meta["seeker_initial_emotion_intensity"] != "5" ||
		!strings.Contains(first.Meta["strategies"], "Questions") {
		t.Errorf("first dialogue = %+v", first)
	}
	dep, err := Load(Spec{Name: ESConv, Path: filepath.Join(sharedDatasets(t), "esconv"), Filters: Filters{Emotion: []string{"Depression"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dep) != 56 {
		t.Errorf("depression filter kept %d, want 56", len(dep))
	}
}

func TestESConvHFWrappedLines(t *testing.T) {
	isolate(t)
	got, err := Load(Spec{Name: ESConv, Path: "testdata/hf/esconv_test.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d dialogues, want 3", len(got))
	}
	s := got[0]
	if s.ID != "esconv_test-0" || s.Emotion != "anxiety" || s.Problem != "job crisis" || s.Meta["speakers"] != "usr/sys" ||
		len(s.Context) != 5 || s.Context[1] != (Utterance{Supporter, "Of course. What is on your mind today?", "Question"}) ||
		s.Context[0].Speaker != Seeker || s.Meta["strategies"] != "Question; Reflection of feelings; Providing Suggestions" {
		t.Errorf("first = %+v", s)
	}
	if got[1].Context[0].Speaker != Supporter || got[2].Emotion != "anger" {
		t.Errorf("second/third = %+v / %+v", got[1], got[2])
	}
	bare, err := Load(Spec{Name: ESConv, Path: "testdata/hf", Split: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare) != 2 || bare[1].Problem != "breakup with partner" {
		t.Errorf("bare lines: %+v", bare)
	}
}

func TestESConvErrors(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.json")
	os.WriteFile(bad, []byte(`[{"emotion_type":"fear","dialog":[{"speaker":"doctor","content":"hi"}]}]`), 0o644)
	_, err := Load(Spec{Name: ESConv, Path: bad})
	if err == nil || !strings.Contains(err.Error(), `dialogue x-0 turn 0: unknown speaker "doctor"`) {
		t.Errorf("err = %v", err)
	}
	trunc := filepath.Join(dir, "test.txt")
	os.WriteFile(trunc, []byte("{\"dialog\":[{\"speaker\":\"usr\",\"text\":\"a\"}]}\n{\"text\": 5}\n"), 0o644)
	_, err = Load(Spec{Name: ESConv, Path: dir, Split: "test"})
	if err == nil || !strings.Contains(err.Error(), "test.txt: line 2: decoding dialogue") {
		t.Errorf("err = %v", err)
	}
}
