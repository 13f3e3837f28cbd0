package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mascot.dev/mascot/internal/testgate"
)

// Environment of the browser test:
//   - MASCOT_SKIP_BROWSER=1 skips it explicitly; otherwise a missing
//     Chromium skips it with a message (fails it under MASCOT_FULL=1).
//   - MASCOT_TEST_ARTIFACTS is where screenshots go (default t.TempDir()).
//   - MASCOT_UI_SCREENSHOT, when set, is the path of a PNG of the
//     conversation page (used for docs/ui-screenshot.png).
//   - MASCOT_CHROMIUM overrides the browser binary.

// TestBrowser drives headless Chromium through the runs list, a run, a
// conversation, a comparison and the rater page, submits a preference and
// checks the store recorded it.
func TestBrowser(t *testing.T) {
	bin := testgate.Chromium(t)
	srv, st := newTestServer(t)
	art := os.Getenv("MASCOT_TEST_ARTIFACTS")
	if art == "" {
		art = t.TempDir()
	}
	must(t, os.MkdirAll(art, 0o755))

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(art, name+".png"), png, 0o644))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return s
	}
	expect := func(sel string, wants ...string) {
		t.Helper()
		got := text(sel)
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q in %q", sel, w, got)
			}
		}
	}

	// Runs list, then follow the link to a run.
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs"))))
	expect("#runs", "paper-esconv", "ablation-no-director", "live-run", "running", "llm_calls=42")
	shot("01-runs")
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="/runs/run-a"]`)),
		chromedp.WaitVisible(chromedp.CSS("#stages"))))
	expect("#title", "Run paper-esconv")
	expect("#stages", "generate", "dialogue", "judge", "100.0%")
	expect("#config", `"model": "gpt-4o"`)
	shot("02-run")

	// Conversations list, then a conversation.
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="/runs/run-a/episodes"]`)),
		chromedp.WaitVisible(chromedp.CSS("#episodes"))))
	expect("#episodes", "conv-001", "mascot", "zero-shot")
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#episodes tr.episode a`)),
		chromedp.WaitVisible(chromedp.CSS("#turns"))))
	expect("#title", "Conversation conv-001")
	expect("#turns", "I lost my job last week", "The Anchor", "Action: validate feelings", "Tone: warm",
		"acknowledges the loss before offering help")
	expect("#judgments", "Fidelity", "the group stays on the seeker's problem")
	shot("03-conversation")
	if p := os.Getenv("MASCOT_UI_SCREENSHOT"); p != "" {
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		must(t, err)
		must(t, os.WriteFile(p, png, 0o644))
	}

	// A comparison of two runs.
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a=run-a&b=run-b"),
		chromedp.WaitVisible(chromedp.CSS("#changed"))))
	expect("#title", "Compare paper-esconv with ablation-no-director")
	expect("#changed", "conv-00", "-")
	expect("#counter-deltas", "llm_calls", "42", "40")
	shot("04-compare")

	// The rater page: choose conversation A and check what was stored.
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/rate?run=run-a&rater=ann"),
		chromedp.WaitVisible(chromedp.CSS("#rate-form"))))
	expect("#rate-form", "Conversation A", "Conversation B", "I lost my job")
	if got := text("#rate-form"); strings.Contains(got, "zero-shot") {
		t.Errorf("rater page reveals a system name: %q", got)
	}
	shot("05-rate")
	must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#choose-A")),
		chromedp.WaitVisible(chromedp.CSS("#recorded"))))
	expect("#recorded", "Recorded preference #1")
	expect("#rate-form", "Conversation A")
	shot("06-rated")
	prefs, err := st.HumanPreferences(context.Background(), "run-a")
	must(t, err)
	if len(prefs) != 1 || prefs[0].RaterID != "ann" || prefs[0].Choice != prefs[0].Systems[0] {
		t.Fatalf("stored preferences %+v; want one by ann choosing the first system shown", prefs)
	}
	t.Logf("screenshots in %s", art)
}
