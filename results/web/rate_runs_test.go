package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// TestRateAcrossRuns compares run-a's mascot with run-b's mascot (each run
// alone would do for the single-run rater only because the fixture has two
// systems per run): the page is blind, the choices map back to their runs,
// one preference per criterion rated is stored, bad posts are refused, and
// the report shows human and judge win rates with their agreement.
func TestRateAcrossRuns(t *testing.T) {
	srv, st := newTestServer(t)
	ctx := context.Background()
	code, body := get(t, srv, "/rate/runs")
	if code != 200 || !strings.Contains(body, `value="run-a:mascot"`) || !strings.Contains(body, `value="run-b:zero-shot"`) {
		t.Fatalf("picker: status %d, arms missing:\n%s", code, body)
	}
	code, body = get(t, srv, "/rate/runs?arm=run-a:mascot&arm=run-b:mascot&rater=ann&context=conv-001")
	if code != 200 {
		t.Fatalf("rater page: status %d\n%s", code, body)
	}
	slots := regexp.MustCompile(`(?s)<div class="panel slot".*?</div>\n</div>`).FindAllString(body, -1)
	if len(slots) != 2 {
		t.Fatalf("%d conversations shown, want 2", len(slots))
	}
	for _, s := range slots {
		for _, leak := range []string{"run-a", "run-b", "mascot", "paper-esconv"} {
			if strings.Contains(s, leak) {
				t.Errorf("a shown conversation reveals %q", leak)
			}
		}
	}
	for _, want := range []string{`name="choice:"`, `name="choice:fidelity"`, `name="choice:engagement_contribution"`} {
		if !strings.Contains(body, want) {
			t.Errorf("rater page lacks %s", want)
		}
	}
	eps := regexp.MustCompile(`name="ep" value="(\d+)"`).FindAllStringSubmatch(body, -1)
	form := url.Values{"csrf": {csrfOf(t, body)}, "rater": {"ann"}, "context": {"conv-001"}, "shown": {"1"},
		"arm": {"run-a:mascot", "run-b:mascot"}, "choice:fidelity": {"tie"}}
	runOf := map[int64]string{}
	bWins := ""
	for i, m := range eps {
		form.Add("ep", m[1])
		id, _ := strconv.ParseInt(m[1], 10, 64)
		e, err := st.GetEpisode(ctx, id)
		must(t, err)
		runOf[id] = e.RunID
		if e.RunID == "run-b" {
			bWins = strconv.Itoa(i)
		}
	}
	form.Set("choice:", bWins)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(v url.Values) int {
		resp, err := client.PostForm(srv.URL+"/rate/runs", v)
		must(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(form); c != http.StatusSeeOther {
		t.Fatalf("POST /rate/runs: status %d", c)
	}
	for name, mut := range map[string]func(v url.Values){
		"no overall":    func(v url.Values) { v.Del("choice:") },
		"bad choice":    func(v url.Values) { v.Set("choice:", "2") },
		"foreign ep":    func(v url.Values) { v.Set("ep", "999") },
		"one arm":       func(v url.Values) { v["arm"] = v["arm"][:1] },
		"malformed arm": func(v url.Values) { v.Add("arm", "run-a") },
	} {
		v := url.Values{}
		for k, vs := range form {
			v[k] = append([]string(nil), vs...)
		}
		mut(v)
		if c := post(v); c != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, c)
		}
	}
	prefs, err := st.CrossRunPreferences(ctx, []string{"run-b"})
	must(t, err)
	if len(prefs) != 2 {
		t.Fatalf("%d cross-run preferences stored, want 2 (overall and Fidelity)", len(prefs))
	}
	for _, p := range prefs {
		for i, id := range p.EpisodeIDs {
			if p.Runs[i] != runOf[id] || p.Systems[i] != runOf[id]+":mascot" {
				t.Errorf("stored episode %d as %s/%s, want run %s", id, p.Runs[i], p.Systems[i], runOf[id])
			}
		}
		want := map[string]string{"": "run-b:mascot", "fidelity": results.Tie}[p.Criterion]
		if p.Choice != want || p.RunID != "" || p.RaterID != "ann" {
			t.Errorf("criterion %q: stored %+v, want choice %s", p.Criterion, p, want)
		}
	}
	if ps, _ := st.HumanPreferences(ctx, "run-a"); len(ps) != 0 {
		t.Errorf("cross-run ratings leaked into run-a's own preferences: %d", len(ps))
	}

	rep, err := report.Build(ctx, st, []string{"run-a", "run-b"}, report.Options{Resamples: -1})
	must(t, err)
	if rep.CrossRun == nil {
		t.Fatal("report has no cross-run section")
	}
	got := map[string]report.WinRate{}
	for _, wr := range rep.CrossRun.WinRates {
		got[wr.Source+"/"+wr.Criterion+"/"+wr.System] = wr
	}
	if w := got["human/overall/run-b:mascot"]; w.Wins != 1 || w.Shown != 1 {
		t.Errorf("human overall win of run-b: %+v", w)
	}
	if w := got["human/fidelity/run-a:mascot"]; w.Ties != 1 || w.Wins != 0 {
		t.Errorf("human Fidelity tie: %+v", w)
	}
	if w, ok := got["llm-judge/fidelity/run-b:mascot"]; !ok || w.Shown != 1 {
		t.Errorf("judge's Fidelity rate on the same comparison missing: %+v", rep.CrossRun.WinRates)
	}
	if len(rep.CrossRun.Agreement) != 2 || rep.CrossRun.Agreement[0].N != 1 {
		t.Errorf("agreement %+v, want one comparison for each of 2 criteria", rep.CrossRun.Agreement)
	}
	_, page := get(t, srv, "/runs/run-b/report")
	if !strings.Contains(page, `id="crossrun"`) || !strings.Contains(page, "run-b:mascot") {
		t.Error("the viewer's report page of run-b does not show the cross-run ratings")
	}
	var buf bytes.Buffer
	must(t, report.Render(&buf, rep, report.FormatText))
	for _, want := range []string{"Human ratings across runs", "run-b:mascot", "Human–judge agreement"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("rendered report lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	must(t, report.Render(&buf, rep, report.FormatCSV))
	if !strings.Contains(buf.String(), "cross_run_win_rate,,human,run-b:mascot,pairwise,overall,1,1,") ||
		!strings.Contains(buf.String(), "agreement,,human-vs-llm-judge,,,fidelity,1,") {
		t.Errorf("CSV report lacks the cross-run lines:\n%s", buf.String())
	}
	// Every line has the header's columns (csv.Reader checks the count).
	if recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll(); err != nil || len(recs[0]) != len(report.CSVHeader) {
		t.Errorf("CSV report is not rectangular with %d columns: %v", len(report.CSVHeader), err)
	}
	buf.Reset()
	must(t, report.Render(&buf, rep, report.FormatJSON))
	if !strings.Contains(buf.String(), `"cross_run"`) || !strings.Contains(buf.String(), `"kappa"`) {
		t.Errorf("JSON report lacks the cross-run section")
	}
}
