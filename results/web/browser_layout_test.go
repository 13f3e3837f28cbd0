package web

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/results"
)

// seedDemoShaped adds what a demo run holds beyond the fixture: the
// counters every run writes (about 90: per role and per plugin) and two
// short training curves (4 and 6 steps, as the demo's GRPO stages log).
func seedDemoShaped(t testing.TB, st *results.Store, runID string) {
	t.Helper()
	ctx := context.Background()
	c := map[string]int64{"units_failed": 0, "num_generation_failures": 0, "num_directive_parse_failures": 3,
		"num_random_agent_fallbacks": 3, "num_empty_responses": 1, "num_annotation_failures": 0,
		"num_skipped_samples": 0, "num_episodes": 12, "num_turns": 40, "num_items_judged": 30}
	for _, role := range []string{"director", "speaker", "user", "judge:rubric"} {
		for _, k := range []string{"requests", "attempts", "retries_429", "retries_5xx", "retries_timeout",
			"retries_malformed", "retries_other", "failures", "failures_429", "failures_5xx", "failures_timeout",
			"failures_malformed", "failures_other", "tokens_in", "tokens_out", "cache_hits", "reused",
			"lost_in_flight", "latency_p50_ms", "latency_p95_ms"} {
			c["llm."+role+"."+k] = int64(len(k) * 7)
		}
	}
	c["llm.speaker.failures"] = 2
	for _, p := range []string{"rubric", "distinct-n"} {
		c["plugin."+p+".restarts"], c["plugin."+p+".timeouts"] = 0, 0
	}
	must(t, st.AddCounters(ctx, runID, "eval", c))
	for _, tr := range []struct {
		key   string
		steps int
	}{{"speaker_grpo", 6}, {"director_grpo", 4}} {
		u := results.Unit{Fingerprint: "train-" + tr.key + "-" + runID, Kind: "train-grpo", StageKey: tr.key, RunID: runID}
		must(t, st.CommitUnit(ctx, u, func(tx *results.Tx) error {
			for s := 1; s <= tr.steps; s++ {
				x := float64(s)
				if _, err := tx.InsertTrainingStep(results.TrainingStep{Step: s, Epoch: x, Loss: fptrOf(0.3 - 0.05*x),
					Reward: fptrOf(0.4 + 0.02*x), KL: fptrOf(0.001 * x), LR: fptrOf(5e-3), GradNorm: fptrOf(2 + 1/x),
					Values: map[string]float64{"reward_std": 0.05, "clip_frac": 0, "completion_length": 20 + x,
						"tokens_per_second": 900 + 10*x}}); err != nil {
					return err
				}
			}
			return nil
		}))
	}
}

// box is an element as laid out.
type box struct{ X, Y, W, H float64 }

func (b box) inside(o box) bool {
	const slack = 0.5
	return b.X >= o.X-slack && b.Y >= o.Y-slack && b.X+b.W <= o.X+o.W+slack && b.Y+b.H <= o.Y+o.H+slack
}

func (b box) overlaps(o box) bool {
	return b.X < o.X+o.W && o.X < b.X+b.W && b.Y < o.Y+o.H && o.Y < b.Y+b.H
}

// chart is one training figure: its box, its panel's and its section's,
// its texts; Clipped counts the curve paths (lines, markers) that reach
// past the SVG's edge (cut off), UnderLegend the points sampled along the
// curves that fall on a legend label (a curve drawn over it).
type chart struct {
	Panel, Section, Fig, SVG box
	Ticks                    []string
	Clipped, UnderLegend     int
}

// measureCharts measures every training chart; a curve path is one drawn
// in a series colour (axes and background are black and white), a legend
// label a text naming a series of the training charts.
const measureCharts = `(() => {
  const b = e => { const r = e.getBoundingClientRect(); return {X: r.left + scrollX, Y: r.top + scrollY, W: r.width, H: r.height}; };
  const plain = c => !c || c === 'none' || /^#(000000|ffffff)$/i.test(c);
  return Array.from(document.querySelectorAll('section.curve figure.plot')).map(f => {
    const s = f.querySelector('svg'), sr = s.getBoundingClientRect();
    const texts = Array.from(s.querySelectorAll('text'));
    const labels = texts.filter(t => ['reward', 'reward std'].includes(t.textContent.trim())).map(t => t.getBoundingClientRect());
    const curves = Array.from(s.querySelectorAll('path')).filter(p => !plain(p.getAttribute('stroke')) || !plain(p.getAttribute('fill')));
    let clipped = 0, under = 0;
    for (const p of curves) {
      const r = p.getBoundingClientRect();
      if (r.left < sr.left - 0.5 || r.right > sr.right + 0.5 || r.top < sr.top - 0.5 || r.bottom > sr.bottom + 0.5) clipped++;
      const len = p.getTotalLength(), m = p.getScreenCTM();
      for (let i = 0; i <= 200 && len > 0; i++) {
        const q = new DOMPoint(p.getPointAtLength(len * i / 200).x, p.getPointAtLength(len * i / 200).y).matrixTransform(m);
        if (labels.some(l => q.x >= l.left && q.x <= l.right && q.y >= l.top && q.y <= l.bottom)) { under++; break; }
      }
    }
    return {Panel: b(f.parentElement), Section: b(f.closest('section')), Fig: b(f), SVG: b(s),
      Ticks: texts.map(t => t.textContent.trim()), Clipped: clipped, UnderLegend: under};
  });
})()`

// TestBrowserTrainingChartsAndRunRows opens the training page and the
// runs list of a demo-shaped run in headless Chromium: every training
// chart lies inside its panel and its section, none overlaps another, and
// each shows its last step whole (the axis reaches the last step's tick,
// no marker cut at the edge), and no curve runs over the legend; a
// runs-list row stays compact (a few counters, not ~90; under 120 px).
func TestBrowserTrainingChartsAndRunRows(t *testing.T) {
	bin := testgate.Chromium(t)
	st := openStore(t)
	seed(t, st)
	seedDemoShaped(t, st, "run-a")
	h, err := NewHandler(st, Options{Resample: 200, PageSize: 4, Patience: time.Minute})
	must(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
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
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(art, name+".png"), png, 0o644))
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/runs/run-a/training"),
		chromedp.WaitVisible(chromedp.CSS("section.curve figure.plot svg"))))
	shot("layout-training")
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chart](measureCharts))
	must(t, err)
	if len(charts) < 10 {
		t.Fatalf("%d training charts, want one per logged value of three curves", len(charts))
	}
	for i, c := range charts {
		if !c.Fig.inside(c.Panel) || !c.Fig.inside(c.Section) || !c.SVG.inside(c.Fig) {
			t.Errorf("chart %d (%v) is not inside its panel %+v and section %+v: figure %+v, svg %+v", i, c.Ticks, c.Panel, c.Section, c.Fig, c.SVG)
		}
		for j, o := range charts[i+1:] {
			if c.Fig.overlaps(o.Fig) {
				t.Errorf("charts %d and %d overlap: %+v, %+v", i, i+1+j, c.Fig, o.Fig)
			}
		}
		if c.Clipped > 0 {
			t.Errorf("chart %d (%s): %d curve paths reach past the figure's edge (cut off)", i, c.Ticks[0], c.Clipped)
		}
		if c.UnderLegend > 0 {
			t.Errorf("chart %d (%s): %d curves run over the legend's labels", i, c.Ticks[0], c.UnderLegend)
		}
	}
	last := map[string]bool{}
	for _, c := range charts {
		for _, tk := range c.Ticks {
			last[tk] = true
		}
	}
	if !last["4"] || !last["6"] {
		t.Errorf("no chart shows the last step as a tick (4 for director_grpo, 6 for speaker_grpo): ticks %v", last)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs"))))
	shot("layout-runs")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](`Array.from(document.querySelectorAll('#runs tr.run')).map(r => {
	  const b = r.getBoundingClientRect(); return {X: b.left, Y: b.top, W: b.width, H: b.height}; })`))
	must(t, err)
	if len(rows) == 0 {
		t.Fatal("the runs list shows no run")
	}
	for i, r := range rows {
		if r.H > 120 {
			t.Errorf("runs-list row %d is %.0f px tall, want a compact row (≤ 120 px)", i, r.H)
		}
	}
	if w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('#runs').getBoundingClientRect().width`)); err != nil || w > 1200 {
		t.Errorf("the runs table is %.0f px wide (%v), wider than the window", w, err)
	}
}
