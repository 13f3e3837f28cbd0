package datasets

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/labels"
)

// meetingsByDomain counts distinct meetings per domain.
func meetingsByDomain(samples []Sample) map[string]int {
	seen := map[string]string{}
	for _, s := range samples {
		seen[s.Meeting] = s.Domain
	}
	out := map[string]int{}
	for _, d := range seen {
		out[d]++
	}
	return out
}

func countQueries(samples []Sample) (general, specific int) {
	for _, s := range samples {
		switch s.Meta["query_type"] {
		case "general":
			general++
		case "specific":
			specific++
		}
	}
	return
}

func TestQMSumPerMeetingDirectory(t *testing.T) {
	isolate(t)
	dir := filepath.Join(sharedDatasets(t), "qmsum", "test")
	got, err := Load(Spec{Name: QMSum, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if g, s := countQueries(got); g != 37 || s != 244 {
		t.Errorf("queries = %d general + %d specific, want 37 + 244", g, s)
	}
	dom := meetingsByDomain(got)
	if len(dom) != 3 || dom[labels.DomainAcademic] != 9 || dom[labels.DomainCommittee] != 6 || dom[labels.DomainProduct] != 20 {
		t.Errorf("meetings by domain = %v, want 9 academic / 6 committee / 20 product", dom)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	ids := map[string]bool{}
	for _, s := range got {
		ids[s.Meeting] = true
	}
	for _, f := range files {
		if id := strings.TrimSuffix(filepath.Base(f), ".json"); !ids[id] {
			t.Errorf("meeting %s missing", id)
		}
	}
	if len(ids) != 35 || len(files) != 35 {
		t.Errorf("%d meetings from %d files, want 35", len(ids), len(files))
	}
	byID := map[string]Sample{}
	for _, s := range got {
		byID[s.ID] = s
	}
	s, ok := byID["Bed003/s0"]
	if !ok {
		t.Fatal("no sample Bed003/s0")
	}
	if s.Query != "What did Grad B say about the structure of the belief net?" || s.StartIdx != 137 ||
		len(s.Context) != 14 || s.Context[0] != (Utterance{Speaker: "Grad D", Text: "Right ?"}) ||
		s.Context[13].Speaker != "Grad B" || s.Domain != labels.DomainAcademic || s.Dataset != QMSum ||
		s.Meta["spans"] != "137-150" || !strings.HasPrefix(s.Answer, "It is necessary for the belief-net") {
		t.Errorf("Bed003/s0 = %+v", s)
	}
	g := byID["Bed003/g0"]
	if g.Query != "Summarize the meeting" || g.StartIdx != 0 || len(g.Context) != DefaultContextTurns || g.Meta["query_type"] != "general" {
		t.Errorf("Bed003/g0: query %q start %d turns %d", g.Query, g.StartIdx, len(g.Context))
	}
	// Two spans are concatenated; StartIdx is the first span's start.
	m := byID["ES2004a/s1"]
	if m.StartIdx != 203 || len(m.Context) != (232-203+1)+(248-246+1) || m.Meta["spans"] != "203-232,246-248" || m.Domain != labels.DomainProduct {
		t.Errorf("ES2004a/s1: start %d, %d turns, spans %q", m.StartIdx, len(m.Context), m.Meta["spans"])
	}
}

func TestQMSumJSONLMatchesDirectory(t *testing.T) {
	isolate(t)
	root := filepath.Join(sharedDatasets(t), "qmsum")
	lines, err := Load(Spec{Name: QMSum, Path: filepath.Join(root, "test.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Load(Spec{Name: QMSum, Path: filepath.Join(root, "test")})
	if err != nil {
		t.Fatal(err)
	}
	// JSONL lines carry no id: domains come from speaker names and must
	// give the same split as the ids.
	dom := meetingsByDomain(lines)
	if dom[labels.DomainAcademic] != 9 || dom[labels.DomainCommittee] != 6 || dom[labels.DomainProduct] != 20 {
		t.Errorf("JSONL meetings by domain = %v, want 9/6/20", dom)
	}
	if lines[0].Meeting != "test_0" || lines[0].ID != "test_0/g0" {
		t.Errorf("first JSONL sample: meeting %q id %q", lines[0].Meeting, lines[0].ID)
	}
	key := func(s Sample) string {
		return s.Domain + "|" + s.Query + "|" + s.Answer + "|" + s.Meta["spans"] + "|" + s.Context[len(s.Context)-1].Text
	}
	var a, b []string
	for _, s := range lines {
		a = append(a, key(s))
	}
	for _, s := range dir {
		b = append(b, key(s))
	}
	sort.Strings(a)
	sort.Strings(b)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("JSONL and per-meeting directory give different samples (%d vs %d)", len(a), len(b))
	}
}

func TestQMSumDirectoryResolvesSplit(t *testing.T) {
	isolate(t)
	root := filepath.Join(sharedDatasets(t), "qmsum")
	loc, err := Locate(Spec{Name: QMSum, Path: root, Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs(filepath.Join(root, "test")); loc != want {
		t.Errorf("Locate = %s, want the per-meeting directory %s", loc, want)
	}
	got, err := Load(Spec{Name: QMSum, Path: root, Filters: Filters{Domain: []string{"committee"}}, ContextTurns: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 72 {
		t.Errorf("committee samples = %d, want 72", len(got))
	}
	for _, s := range got {
		if s.Domain != labels.DomainCommittee || (s.Meta["query_type"] == "general" && len(s.Context) != 5) {
			t.Fatalf("sample %s: domain %s, %d turns", s.ID, s.Domain, len(s.Context))
		}
	}
}

func TestSpeakerRuleAgreesWithMeetingIDs(t *testing.T) {
	isolate(t)
	got, err := Load(Spec{Name: QMSum, Path: filepath.Join(sharedDatasets(t), "qmsum", "test"), ContextTurns: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range got {
		if s.Meta["query_type"] != "general" || strings.HasSuffix(s.ID, "/g1") {
			continue
		}
		var names []string
		for _, u := range s.Context {
			names = append(names, u.Speaker)
		}
		if d := labels.DomainFromSpeakers(names); d != labels.DomainFromMeetingID(s.Meeting) {
			t.Errorf("meeting %s: speakers say %s, id says %s", s.Meeting, d, labels.DomainFromMeetingID(s.Meeting))
		}
		checked++
	}
	if checked != 35 {
		t.Errorf("checked %d meetings, want 35", checked)
	}
}

func TestQMSumBadSpanIsAnError(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "broken.jsonl")
	line := `{"topic_list":[],"general_query_list":[],"specific_query_list":[{"query":"q","answer":"a","relevant_text_span":[["1","9"]]}],"meeting_transcripts":[{"speaker":"A","content":"x"},{"speaker":"B","content":"y"}]}`
	if err := os.WriteFile(p, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Spec{Name: QMSum, Path: p})
	if err == nil || !strings.Contains(err.Error(), "broken.jsonl: line 1: meeting broken_0 specific query 0: span 0 [1 9] is outside the 2 transcript turns") {
		t.Errorf("err = %v", err)
	}
}
