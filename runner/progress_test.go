package runner

import (
	"bytes"
	"strings"
	"testing"
)

// In a log, a stage's Status lines are throttled: the first is printed at
// once, later ones within StatusLogEvery are held back, and the latest
// held-back one is printed when the stage finishes, before its "done" line.
func TestStatusLinesInALog(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	b := p.add("grpo", 1, 0)
	p.status("grpo", "step 1/3 loss=0.5")
	p.status("grpo", "step 2/3 loss=0.4")
	p.status("grpo", "step 3/3 loss=0.3")
	p.status("other", "not a stage of this run")
	b.inc()
	b.finish()
	p.stop()
	got := buf.String()
	for _, want := range []string{"stage grpo: step 1/3 loss=0.5\n", "stage grpo: step 3/3 loss=0.3\nstage grpo: done"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"step 2/3", "not a stage"} {
		if strings.Contains(got, bad) {
			t.Errorf("log has %q, which should have been held back:\n%s", bad, got)
		}
	}
}

// On a terminal the latest Status text is drawn live beside the stage's
// bar, with nothing printed as a log line.
func TestStatusDrawnOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, tty: true, quit: make(chan struct{}), done: make(chan struct{})}
	p.add("grpo", 1, 0)
	p.status("grpo", "step=1/3 loss=0.5")
	p.status("grpo", "step=2/3 loss=0.4 eta=3s")
	p.draw()
	got := buf.String()
	if !strings.Contains(got, "0/1 · step=2/3 loss=0.4 eta=3s\n") || strings.Contains(got, "step=1/3") {
		t.Errorf("terminal shows %q, want the latest status beside the bar", got)
	}
}

// add adds a stage's bar whose planning is over: total units, cached of
// them done (runStage plans through addPlanning, addCached and planned).
func (p *progress) add(name string, total, cached int) *bar {
	b := p.addPlanning(name, total)
	b.addCached(cached)
	b.planned()
	return b
}
