package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mascot.dev/mascot/internal/testgate"
)

// TestBrowserRateRuns picks two runs on the cross-run rater page in
// headless Chromium, rates a pair overall and checks the store.
func TestBrowserRateRuns(t *testing.T) {
	bin := testgate.Chromium(t)
	srv, st := newTestServer(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	must(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/rate/runs"),
		chromedp.WaitVisible(css("#arms-form")),
		chromedp.Click(css(`input[value="run-a:mascot"]`)),
		chromedp.Click(css(`input[value="run-b:mascot"]`)),
		chromedp.SendKeys(css(`input[name="rater"]`), "bea"),
		chromedp.Submit(css("#arms-form")),
		chromedp.WaitVisible(css("#rate-form")),
		chromedp.Click(css("#choice-overall-A")),
		chromedp.Click(css("#submit-rating")),
		chromedp.WaitVisible(css("#recorded"))))
	form, err := chromedp.Run(ctx, chromedp.Text(css("#rate-form")))
	must(t, err)
	if strings.Contains(form, "run-a") || strings.Contains(form, "mascot") {
		t.Errorf("the rater page reveals a run or system: %q", form)
	}
	prefs, err := st.CrossRunPreferences(context.Background(), nil)
	must(t, err)
	if len(prefs) != 1 || prefs[0].RaterID != "bea" || prefs[0].Criterion != "" || len(prefs[0].Runs) != 2 {
		t.Fatalf("stored %+v; want one overall rating by bea across two runs", prefs)
	}
}
