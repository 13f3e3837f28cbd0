package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticDir embed.FS

func staticFS() fs.FS {
	sub, err := fs.Sub(staticDir, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return sub
}

// pageSet holds one template per page, each parsed with the layout.
type pageSet struct{ pages map[string]*template.Template }

var funcs = template.FuncMap{
	"f1":  func(x float64) string { return fmtF(x, 1) },
	"f2":  func(x float64) string { return fmtF(x, 2) },
	"pct": func(x float64) string { return report.Number(100*x) + "%" },
	// Report cells use the one rule of results/report (format.go) for
	// their decimals, as the terminal and markdown tables do.
	"num":      report.Number,
	"meanstd":  report.FormatMeanStd,
	"interval": report.FormatInterval,
	// pnum formats one number of a paired cell with the cell's decimals.
	"pnum": func(x float64, p report.PairedStat) string {
		return report.Num(x, report.Decimals(p.MeanDiff, p.CILow, p.CIHigh, p.MeanA, p.MeanB))
	},
	"time":      fmtTime,
	"dur":       fmtDur,
	"ms":        func(ms int64) string { return fmtDur(time.Duration(ms) * time.Millisecond) },
	"short":     func(s string) string { return shorten(s, 12) },
	"deref":     func(p *string) string { return derefStr(p) },
	"fptr":      func(p *float64) string { return fptr(p) },
	"add":       func(a, b int) int { return a + b },
	"statusOK":  func(s string) bool { return s == results.RunDone || s == "done" },
	"lower":     strings.ToLower,
	"criterion": results.CriterionName,
	// population labels a row outside the evaluation population: "(chat)",
	// "(training: MODE)" (report.SystemLabel's words).
	"population": func(p string) string { return strings.TrimSpace(report.SystemLabel("", p)) },
	"deref_int": func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	},
}

// parsePages parses every page; token is the same-site form token the
// templates embed through {{csrf}}.
func parsePages(token string) (*pageSet, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	ps := &pageSet{pages: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).Funcs(template.FuncMap{"csrf": func() string { return token }}).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", n, err)
		}
		ps.pages[base] = t
	}
	return ps, nil
}

// page is what every template receives.
type page struct {
	Title   string
	Refresh int // seconds; 0 = no auto-refresh
	Data    any
}

// render executes a page into a buffer first so that a template error
// becomes a 500 instead of half a page.
func (s *server) render(w http.ResponseWriter, name string, p page) error {
	return s.renderStatus(w, http.StatusOK, name, p)
}

// renderStatus is render with a status code other than 200.
func (s *server) renderStatus(w http.ResponseWriter, code int, name string, p page) error {
	t := s.pages.pages[name]
	if t == nil {
		return fmt.Errorf("rendering: no template %q", name)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if code != http.StatusOK {
		w.WriteHeader(code)
	}
	_, err := buf.WriteTo(w)
	return err
}

// httpError carries a status code to the error page.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// handle adapts an error-returning handler: store "not found" errors become
// 404, httpErrors keep their code, anything else is a logged 500.
func (s *server) handle(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		code, msg := http.StatusInternalServerError, "internal error: "+err.Error()
		var he *httpError
		switch {
		case errors.As(err, &he):
			code, msg = he.code, he.msg
		case errors.Is(err, results.ErrNotFound):
			code, msg = http.StatusNotFound, err.Error()
		default:
			s.opts.Logger.Error("serving page", "path", r.URL.Path, "err", err)
		}
		w.WriteHeader(code)
		t := s.pages.pages["error"]
		_ = t.Execute(w, page{Title: http.StatusText(code), Data: struct {
			Code int
			Msg  string
		}{code, msg}})
	}
}

func fmtF(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func fptr(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmtF(*p, 4)
}
