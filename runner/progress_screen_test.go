package runner

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// screen renders what a terminal shows for the bytes the progress writes:
// lines, "\n", "\r", and the escapes it uses (ESC[nA cursor up, ESC[2K
// erase the line, ESC[J erase to the end of the screen).
type screen struct {
	lines []string
	row   int
}

func (s *screen) Write(b []byte) (int, error) {
	str := string(b)
	for i := 0; i < len(str); i++ {
		for len(s.lines) <= s.row {
			s.lines = append(s.lines, "")
		}
		switch c := str[i]; {
		case c == '\n':
			s.row++
		case c == '\r':
		case c == 0x1b && i+1 < len(str) && str[i+1] == '[':
			j := i + 2
			for j < len(str) && (str[j] >= '0' && str[j] <= '9') {
				j++
			}
			n, _ := strconv.Atoi(str[i+2 : j])
			switch str[j] {
			case 'A':
				s.row = max(0, s.row-max(1, n))
			case 'K':
				s.lines[s.row] = ""
			case 'J':
				s.lines = s.lines[:s.row+1]
				s.lines[s.row] = ""
			}
			i = j
		default:
			s.lines[s.row] += str[i : i+1]
		}
	}
	return len(b), nil
}

func (s *screen) String() string { return strings.Join(s.lines, "\n") }

// TestTablesStayAboveTheBars: on a terminal, a report table written while
// the bars are drawn stays on the screen whole, every row of it, with the
// bars redrawn below it; before, the redraw moved up into the table and
// drew the bars over its last rows.
func TestTablesStayAboveTheBars(t *testing.T) {
	var scr screen
	p := &progress{w: &scr, tty: true, quit: make(chan struct{}), done: make(chan struct{})}
	a := p.add("eval", 2, 0)
	r := p.add("report", 1, 0)
	p.draw()
	a.inc()
	a.inc()
	a.finish()
	p.draw()
	out := aboveBars{p: p, w: &scr}
	table := []string{"Metrics — tour", "System  distinct_1", "------  ----------", "mascot  0.624", "mascot  0.700"}
	for _, l := range table {
		fmt.Fprintln(out, l)
	}
	r.inc()
	r.finish()
	p.draw()
	p.draw()
	got := scr.String()
	if !strings.Contains(got, strings.Join(table, "\n")+"\n") {
		t.Fatalf("the table is not on the screen whole:\n%s", got)
	}
	tail := got[strings.Index(got, table[len(table)-1]):]
	if !strings.Contains(tail, "eval ") || !strings.Contains(tail, "report ") {
		t.Errorf("the bars are not drawn below the table:\n%s", got)
	}
	if strings.Count(got, "eval ") != 1 {
		t.Errorf("the eval bar is on the screen %d times, want once:\n%s", strings.Count(got, "eval "), got)
	}
}

// TestFinishedStageClockStops: a finished stage's time is fixed when it
// finishes (two draws a while apart show the same line), and a stage whose
// every unit was cached shows no clock at all.
func TestFinishedStageClockStops(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, tty: true, quit: make(chan struct{}), done: make(chan struct{})}
	ran := p.add("pretrain", 1, 0)
	cached := p.add("eval", 2, 2)
	ran.inc()
	ran.finish()
	cached.finish()
	first := ran.line()
	time.Sleep(250 * time.Millisecond)
	if again := ran.line(); again != first {
		t.Errorf("a finished stage's line changed from %q to %q: its clock kept counting", first, again)
	}
	if !strings.Contains(first, " in ") {
		t.Errorf("a stage that ran shows %q, want the time it took", first)
	}
	if got := cached.line(); got != "2/2 (2 cached)" {
		t.Errorf("a fully cached stage shows %q, want \"2/2 (2 cached)\" and no clock", got)
	}
}
