package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress shows per-stage unit progress: a redrawn block of bars on a
// terminal, plain log lines otherwise (at most one per stage per 10 %).
type progress struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	bars  []*bar
	drawn int
	quit  chan struct{}
	done  chan struct{}
}

type bar struct {
	p                          *progress
	name                       string
	total, cached, ran, failed int
	start, end                 time.Time
	finished                   bool
	lastDecile                 int
	// detail is the stage's latest Status text; logged is when a detail
	// was last printed to a log, pending that a newer one was not.
	detail  string
	logged  time.Time
	pending bool
	// planning is set while the stage is still finding which of its
	// units are done (runStage plans in chunks while the first ones
	// run): a log holds back the stage's lines until its header can
	// say how many units are cached.
	planning bool
}

// StatusLogEvery is the least time between two Status lines of a stage
// in a log (not a terminal).
const StatusLogEvery = 10 * time.Second

// status records a stage's detail text (Env.Status).
func (p *progress) status(name, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b *bar
	for _, x := range p.bars {
		if x.name == name {
			b = x
		}
	}
	if b == nil {
		return
	}
	b.detail = text
	if p.w == nil || p.tty {
		return
	}
	if b.planning {
		b.pending = true
		return
	}
	if now := time.Now(); now.Sub(b.logged) >= StatusLogEvery {
		fmt.Fprintf(p.w, "stage %s: %s\n", name, text)
		b.logged, b.pending = now, false
	} else {
		b.pending = true
	}
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, tty: isTerminal(w), quit: make(chan struct{}), done: make(chan struct{})}
	if p.tty {
		go p.loop()
	} else {
		close(p.done)
	}
	return p
}

// addPlanning adds a stage's bar before it knows how many of its total
// units are cached: addCached counts them as planning finds them, and
// planned ends the planning (a log's header line waits for it).
func (p *progress) addPlanning(name string, total int) *bar {
	b := &bar{p: p, name: name, total: total, start: time.Now(), planning: true}
	p.mu.Lock()
	p.bars = append(p.bars, b)
	p.mu.Unlock()
	return b
}

func (b *bar) addCached(n int) {
	if n > 0 {
		b.update(func() { b.cached += n })
	}
}

// planned prints a log's header line ("N units (M cached)"), then what
// the stage's units did while it was being planned.
func (b *bar) planned() {
	p := b.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !b.planning {
		return
	}
	b.planning = false
	if p.w == nil || p.tty {
		return
	}
	fmt.Fprintf(p.w, "stage %s: %d units (%d cached)\n", b.name, b.total, b.cached)
	if b.pending && !b.finished {
		fmt.Fprintf(p.w, "stage %s: %s\n", b.name, b.detail)
		b.logged, b.pending = time.Now(), false
	}
	if b.ran+b.failed > 0 {
		b.logDecile()
	}
}

func (b *bar) inc()  { b.update(func() { b.ran++ }) }
func (b *bar) fail() { b.update(func() { b.failed++ }) }

func (b *bar) finish() {
	b.planned() // a stage whose planning failed: its header first
	b.update(func() { b.finished, b.end = true, time.Now() })
	p := b.p
	if p.w != nil && !p.tty {
		p.mu.Lock()
		if b.pending {
			fmt.Fprintf(p.w, "stage %s: %s\n", b.name, b.detail)
			b.pending = false
		}
		fmt.Fprintf(p.w, "stage %s: done %s\n", b.name, b.line())
		p.mu.Unlock()
	}
}

func (b *bar) update(f func()) {
	p := b.p
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
	if p.w == nil || p.tty || b.planning {
		return
	}
	b.logDecile()
}

// logDecile prints the stage's line to a log when it has passed another
// tenth of its units (p.mu held).
func (b *bar) logDecile() {
	if b.total == 0 {
		return
	}
	if d := (b.cached + b.ran + b.failed) * 10 / b.total; d > b.lastDecile && !b.finished {
		b.lastDecile = d
		fmt.Fprintf(b.p.w, "stage %s: %s\n", b.name, b.line())
	}
}

// line renders "12/40 (3 cached, 1 failed) 2.1/s ETA 13s".
func (b *bar) line() string {
	n := b.cached + b.ran + b.failed
	el := time.Since(b.start).Seconds()
	s := fmt.Sprintf("%d/%d", n, b.total)
	var extra []string
	if b.cached > 0 {
		extra = append(extra, fmt.Sprintf("%d cached", b.cached))
	}
	if b.failed > 0 {
		extra = append(extra, fmt.Sprintf("%d failed", b.failed))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if b.finished {
		el = b.end.Sub(b.start).Seconds()
	}
	if b.ran > 0 && el > 0 {
		rate := float64(b.ran) / el
		s += fmt.Sprintf(" %.1f/s", rate)
		if left := b.total - n; left > 0 && !b.finished {
			s += fmt.Sprintf(" ETA %s", (time.Duration(float64(left)/rate) * time.Second).Round(time.Second))
		}
	}
	// A finished stage shows the time it took, fixed when it finished; one
	// that ran nothing (every unit cached) shows none, as it took none.
	if b.finished && b.ran+b.failed > 0 {
		s += fmt.Sprintf(" in %s", b.end.Sub(b.start).Round(100*time.Millisecond))
	}
	return s
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.draw()
		case <-p.quit:
			p.draw()
			return
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	for _, x := range p.bars {
		width := 24
		fill := width
		if x.total > 0 {
			fill = width * (x.cached + x.ran + x.failed) / x.total
		}
		line := x.line()
		if x.detail != "" && !x.finished {
			line += " · " + x.detail
		}
		fmt.Fprintf(&b, "\x1b[2K%-22s [%s%s] %s\n", x.name, strings.Repeat("#", fill), strings.Repeat(".", width-fill), line)
	}
	p.drawn = len(p.bars)
	_, _ = io.WriteString(p.w, b.String()) // a broken terminal must not stop the run
}

func (p *progress) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
}

// above returns a writer for text that must stay on the screen while the
// bars are redrawn (a report stage's tables on the same terminal): each
// write first erases the bar block, so the text lands where the bars were
// and the next draw puts them below it. Without this the redraw moves the
// cursor up into the text and draws the bars over its last lines.
func (p *progress) above(w io.Writer) io.Writer {
	if !p.tty || !isTerminal(w) {
		return w
	}
	return aboveBars{p: p, w: w}
}

type aboveBars struct {
	p *progress
	w io.Writer
}

func (a aboveBars) Write(b []byte) (int, error) {
	p := a.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn > 0 {
		// Up to the block's first line, then erase to the end of the screen.
		_, _ = fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
	return a.w.Write(b)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
