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

// plotBox is what the browser shows of one figure.
type plotBox struct {
	ID, Kind, Text      string
	X, Y, Width, Height float64
	Paths               int
}

// measurePlots reads every figure.plot of the page as laid out.
const measurePlots = `Array.from(document.querySelectorAll('figure.plot')).map(f => {
  const s = f.querySelector('svg'); const r = s.getBoundingClientRect();
  return {ID: f.id, Kind: f.className.replace('plot plot-', ''), Text: s.textContent,
    X: r.left + window.scrollX, Y: r.top + window.scrollY, Width: r.width, Height: r.height,
    Paths: s.querySelectorAll('path').length};
})`

// TestBrowserShowsPlots opens the report, compare, sweep and training
// pages in headless Chromium and checks the plots as rendered: each an
// SVG of real size with its labels, none overlapping another, with no
// script on the page.
func TestBrowserShowsPlots(t *testing.T) {
	bin := testgate.Chromium(t)
	srv, _ := newTestServer(t)
	art := os.Getenv("MASCOT_TEST_ARTIFACTS")
	if art == "" {
		art = t.TempDir()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	for _, c := range []struct {
		path, wait, kind string
		min              int
		labels           []string
	}{
		{"/runs/run-a/report", "#report-plots figure.plot svg", "bars", 2, []string{"Fidelity", "Overall", "mascot", "zero-shot"}},
		{"/compare?a=run-a&b=run-b", "#comparison-0 figure.plot svg", "forest", 1, []string{"Fidelity", "paired difference"}},
		{"/runs/sweep/sweep", "#sweep-charts figure.plot svg", "lines", 1, []string{"temperature", "agent overall"}},
		{"/runs/run-a/training", "section.curve figure.plot svg", "lines", 5, []string{"loss", "step"}},
	} {
		must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+c.path), chromedp.WaitVisible(chromedp.CSS(c.wait))))
		boxes, err := chromedp.Run(ctx, chromedp.Evaluate[[]plotBox](measurePlots))
		must(t, err)
		scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`))
		must(t, err)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(art, strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(c.path)+".png"), png, 0o644))
		if scripts != 0 {
			t.Errorf("%s runs %d scripts", c.path, scripts)
		}
		var ofKind []plotBox
		for _, b := range boxes {
			if b.Kind == c.kind {
				ofKind = append(ofKind, b)
			}
		}
		if len(ofKind) < c.min {
			t.Fatalf("%s shows %d %s plots, want at least %d: %+v", c.path, len(ofKind), c.kind, c.min, boxes)
		}
		all := ""
		for _, b := range ofKind {
			all += b.Text
			if b.Width < 200 || b.Height < 100 || b.Paths < 3 {
				t.Errorf("%s: plot %s is %gx%g with %d paths", c.path, b.ID, b.Width, b.Height, b.Paths)
			}
		}
		for _, l := range c.labels {
			if !strings.Contains(all, l) {
				t.Errorf("%s: no plot shows %q", c.path, l)
			}
		}
		for i, a := range boxes {
			for _, b := range boxes[i+1:] {
				if a.X < b.X+b.Width && b.X < a.X+a.Width && a.Y < b.Y+b.Height && b.Y < a.Y+a.Height {
					t.Errorf("%s: plots %s and %s overlap (%+v, %+v)", c.path, a.ID, b.ID, a, b)
				}
			}
		}
	}
}
