package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
)

// runJudge runs mascot judge and returns stdout, stderr and the exit code.
func runJudge(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"judge"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// TestJudgeStoredConversations talks to a finished run, judges the stored
// conversation with the run's rubric judge, and checks: one judgment per
// criterion on each agent turn of the chat episode (the person's turns
// are not judged), stored under stage judge-chat of the same run; a second
// call judges nothing new (cached); a second conversation is judged alone.
func TestJudgeStoredConversations(t *testing.T) {
	db, runID := chatFixture(t, "")
	runChat(t, "I failed my driving test today.\n", "latest", "--db", db)
	out, errs, code := runJudge(t, "latest", "--db", db)
	if code != 0 {
		t.Fatalf("mascot judge: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "judged 1 unit(s) of stage chat (1 ran, 0 cached, 0 failed)") {
		t.Errorf("summary line missing:\n%s", out)
	}
	st, err := results.Open(db)
	must(t, err)
	defer st.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		must(t, st.Reader().QueryRow(q, args...).Scan(&n))
		return n
	}
	judged := `SELECT COUNT(*) FROM judgments j JOIN turns tu ON tu.id = j.turn_id JOIN episodes e ON e.id = tu.episode_id
		JOIN run_units ru ON ru.fingerprint = j.unit_fp WHERE ru.run_id = ? AND ru.stage_key = 'judge-chat' AND e.mode = 'chat'`
	human := judged + ` AND tu.turn_type = 'user'`
	if n := count(judged, runID); n == 0 {
		t.Fatalf("no judgment of the chat episode stored under judge-chat of run %s", runID)
	}
	if n := count(human, runID); n != 0 {
		t.Errorf("%d judgments of the person's turns", n)
	}
	// Closing the reopened run stored its report again (the judgments
	// changed its data), so the next report is served at once.
	fresh := `SELECT COUNT(*) FROM report_cache c JOIN report_stamps s ON s.run_id = c.run_id
		WHERE c.run_id = ? AND c.stamps = s.epoch || ':' || s.version`
	if n := count(fresh, runID); n == 0 {
		t.Errorf("no report of run %s stored after mascot judge", runID)
	}
	first := count(judged, runID)
	if out, _, code := runJudge(t, "latest", "--db", db); code != 0 || !strings.Contains(out, "(0 ran, 1 cached, 0 failed)") {
		t.Errorf("second judge: exit %d, want everything cached:\n%s", code, out)
	}
	runChat(t, "My dog is ill.\n", "latest", "--db", db)
	if out, _, code := runJudge(t, "latest", "--db", db); code != 0 || !strings.Contains(out, "(1 ran, 1 cached, 0 failed)") {
		t.Errorf("after a second conversation: exit %d, want one new unit judged:\n%s", code, out)
	}
	if n := count(judged, runID); n <= first {
		t.Errorf("judgments %d after the second conversation, had %d", n, first)
	}
	var rep, rerr bytes.Buffer
	if code := Run(context.Background(), []string{"report", runID, "--db", db, "--stages", "judge-chat"}, &rep, &rerr); code != 0 {
		t.Fatalf("mascot report --stages judge-chat: exit %d\n%s", code, rerr.String())
	}
	if !regexp.MustCompile(`(?m)^mascot \(chat\)\s+all\s+2\s`).MatchString(rep.String()) {
		t.Errorf("the report of judge-chat lacks a row of the 2 conversations, labelled chat:\n%s", rep.String())
	}
	// The run's own report is of its evaluation episodes: the judged
	// conversations are not mixed into them.
	rep.Reset()
	if code := Run(context.Background(), []string{"report", runID, "--db", db, "--format", "json"}, &rep, &rerr); code != 0 {
		t.Fatalf("mascot report: exit %d\n%s", code, rerr.String())
	}
	var whole struct {
		Tables []json.RawMessage `json:"tables"`
	}
	must(t, json.Unmarshal(rep.Bytes(), &whole))
	if len(whole.Tables) != 0 { // the fixture's run judged none of its evaluation episodes
		t.Errorf("the run's report has tables of the judged conversations:\n%s", rep.String())
	}
}

// TestJudgeBadInput: each mistake is an invalid-input exit (2) with a
// message naming what is wrong, and writes nothing.
func TestJudgeBadInput(t *testing.T) {
	db, _ := chatFixture(t, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"latest"}, "no conversations under stage \"chat\""},
		{[]string{"latest", "--judge", "nope"}, `unknown judge "nope" (the run's config has: rubric)`},
		{[]string{"latest", "--level", "compare"}, "want agent or collective"},
		{[]string{"latest", "--stage", "ghost"}, `has no stage "ghost"`},
		{[]string{"latest", "--as", "../x"}, `"../x" is not a name`},
		{[]string{"latest", "--as", "eval"}, `already has a stage "eval"`},
	}
	st, err := results.Open(db)
	must(t, err)
	defer st.Close()
	var before int
	must(t, st.Reader().QueryRow(`SELECT COUNT(*) FROM judgments`).Scan(&before))
	for _, c := range cases {
		_, errs, code := runJudge(t, append(c.args, "--db", db)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("judge %v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	var after int
	must(t, st.Reader().QueryRow(`SELECT COUNT(*) FROM judgments`).Scan(&after))
	if after != before {
		t.Errorf("bad input wrote %d judgments", after-before)
	}
}
