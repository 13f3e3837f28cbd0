package web

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"mascot.dev/mascot/results"
)

// TestComparePageShowsWhatDiffers: the compare page of a run against two
// others shows, for each pair, the resolved-config fields that differ and
// then the stages, invalidated or reused, with why.
func TestComparePageShowsWhatDiffers(t *testing.T) {
	srv, st := newTestServer(t)
	ctx := context.Background()
	for id, cfg := range map[string]string{
		"diff-a": `{"seed": 1, "stages": {"generate": {"turns": 2}, "judge": {"judges": ["rubric"]}}}`,
		"diff-b": `{"seed": 1, "stages": {"generate": {"turns": 3}, "judge": {"judges": ["rubric"]}}}`,
		"diff-c": `{"seed": 2, "stages": {"generate": {"turns": 2}, "judge": {"judges": ["rubric"]}}}`,
	} {
		must(t, st.CreateRun(ctx, results.Run{ID: id, Name: "run " + id, ConfigJSON: []byte(cfg)}))
		seedEpisodes(t, st, id, 0)
		must(t, st.FinishRun(ctx, id, results.RunDone, `{}`))
	}
	for _, s := range []results.Stage{
		{RunID: "diff-a", Key: "generate", Kind: "episodes", Fingerprint: "g1"}, {RunID: "diff-a", Key: "judge", Kind: "judge", Fingerprint: "j1"},
		{RunID: "diff-b", Key: "generate", Kind: "episodes", Fingerprint: "g2"}, {RunID: "diff-b", Key: "judge", Kind: "judge", Fingerprint: "j2"},
		{RunID: "diff-c", Key: "generate", Kind: "episodes", Fingerprint: "g1"}, {RunID: "diff-c", Key: "judge", Kind: "judge", Fingerprint: "j1"},
	} {
		must(t, st.UpsertStage(ctx, s))
	}
	code, body := get(t, srv, "/compare?a=diff-a&b=diff-b&b=diff-c")
	if code != http.StatusOK {
		t.Fatalf("status %d:\n%s", code, body)
	}
	sections := regexp.MustCompile(`(?s)<section class="comparison" id="comparison-(\d)">(.*?)</section>`).FindAllStringSubmatch(body, -1)
	if len(sections) != 2 {
		t.Fatalf("%d comparisons on the page, want 2 (A with each B):\n%s", len(sections), body)
	}
	cell := func(s string) string { return "<td><code>" + s + "</code></td>" }
	for i, want := range [][]string{
		{`id="diff-fields-0"`, cell("stages.generate.turns") + cell("2") + cell("3"), `id="diff-stages-0"`,
			"<td>generate</td><td>episodes</td>", "invalidated <span class=\"muted\">(its config changed)</span>",
			"<td>judge</td><td>judge</td>", "invalidated <span class=\"muted\">(an input changed"},
		{`id="diff-fields-1"`, cell("seed") + cell("1") + cell("2"), `id="diff-stages-1"`, ">reused</td>"},
	} {
		sec := sections[i][2]
		for _, w := range want {
			if !strings.Contains(sec, w) {
				t.Errorf("comparison %d lacks %q:\n%s", i, w, sec)
			}
		}
		if f, s := strings.Index(sec, "diff-fields-"), strings.Index(sec, "diff-stages-"); f < 0 || s < f {
			t.Errorf("comparison %d: the stages are not listed after the fields", i)
		}
	}
	if strings.Contains(sections[0][2], cell("seed")) || strings.Contains(sections[1][2], "turns") {
		t.Error("a comparison lists a field that does not differ")
	}
}
