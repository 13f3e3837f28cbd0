package schema

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"cuelang.org/go/cue"
)

// Bounds a spec's values must keep, checked before anything runs.
const (
	// MaxNameLength bounds the names of datasets, rosters, endpoints,
	// judges, metrics, rewards and stages: they become file names, and a
	// file system refuses names over 255 bytes with several of them
	// joined into one.
	MaxNameLength = 64
	// MaxTimeout bounds an endpoint's per-attempt timeout and
	// MaxTotalTimeout its total_timeout.
	MaxTimeout      = 24 * time.Hour
	MaxTotalTimeout = 7 * 24 * time.Hour
)

// staticChecks are the checks of values CUE cannot state: endpoint URLs
// that a client can call, prompt templates that parse, builtin endpoints
// that name one model, durations that fit, names short enough to be file
// names. Each error is positioned at the value.
func staticChecks(e *Experiment, v cue.Value, rw posRewriter) Errors {
	var errs Errors
	// at is where the value at path was written: its own position, or
	// that of its first field written in a user file (a map entry's own
	// position can be the schema's).
	at := func(path cue.Path) []string {
		x := v.LookupPath(path)
		if p := rw.pos(x.Pos()); p != "" && !strings.HasPrefix(p, ImportPrefix+"/") {
			return []string{p}
		}
		if it, err := x.Fields(cue.Optional(true)); err == nil {
			for it.Next() {
				if p := rw.pos(it.Value().Pos()); p != "" && !strings.HasPrefix(p, ImportPrefix+"/") {
					return []string{p}
				}
			}
		}
		if p := rw.pos(x.Pos()); p != "" {
			return []string{p}
		}
		return nil
	}
	add := func(msg string, path ...any) {
		errs = append(errs, Error{Path: joinPath(path), Msg: msg, Positions: at(cue.MakePath(selectorsOf(path)...))})
	}
	// Names are printed on terminals: an escape sequence in one would
	// drive the terminal (clear the screen, set the window title).
	if hasControl(e.Name) {
		add(fmt.Sprintf("name %q holds a control character", e.Name), "name")
	}
	for _, name := range keys(e.Rosters) {
		for i, a := range e.Rosters[name].Agents {
			if hasControl(a.Name) {
				add(fmt.Sprintf("agent name %q holds a control character", a.Name), "rosters", name, "agents", i, "name")
			}
		}
	}
	for _, name := range keys(e.Endpoints) {
		ep := e.Endpoints[name]
		for i, u := range ep.URLs {
			if err := checkURL(u); err != nil {
				add(fmt.Sprintf("invalid URL %q: %v (want http://HOST[:PORT]/v1 or https://…)", u, err), "endpoints", name, "urls", i)
			}
		}
		if ep.Kind == "builtin" && ep.ModelDir != "" && ep.ModelStage != "" {
			add("a builtin endpoint serves one model: give model_dir or model_stage, not both", "endpoints", name, "model_stage")
		}
		if ep.Kind != "builtin" && (ep.ModelDir != "" || ep.ModelStage != "") {
			field := "model_dir"
			if ep.ModelDir == "" {
				field = "model_stage"
			}
			add(fmt.Sprintf("%s belongs to builtin endpoints; this one is %s", field, ep.Kind), "endpoints", name, field)
		}
		for _, d := range []struct {
			field, v string
			max      time.Duration
		}{{"timeout", ep.Timeout, MaxTimeout}, {"total_timeout", ep.TotalTimeout, MaxTotalTimeout}} {
			if d.v == "" {
				continue
			}
			t, err := time.ParseDuration(d.v)
			switch {
			case err != nil:
				add(fmt.Sprintf("duration %q is out of range (at most %s)", d.v, d.max), "endpoints", name, d.field)
			case t <= 0:
				add(fmt.Sprintf("duration %q must be more than 0", d.v), "endpoints", name, d.field)
			case t > d.max:
				add(fmt.Sprintf("duration %q is over the limit of %s", d.v, d.max), "endpoints", name, d.field)
			}
		}
	}
	for _, name := range keys(e.Rosters) {
		r := e.Rosters[name]
		for _, t := range []struct{ field, src string }{{"director_template", r.DirectorTemplate}, {"speaker_template", r.SpeakerTemplate}} {
			if err := parseTemplate(t.src); err != nil {
				add(err.Error(), "rosters", name, t.field)
			}
		}
		for i, a := range r.Agents {
			if err := parseTemplate(a.Template); err != nil {
				add(err.Error(), "rosters", name, "agents", i, "template")
			}
		}
	}
	for _, set := range []struct {
		what  string
		names []string
	}{{"datasets", keys(e.Datasets)}, {"rosters", keys(e.Rosters)}, {"endpoints", keys(e.Endpoints)}, {"judges", keys(e.Judges)},
		{"metrics", keys(e.Metrics)}, {"rewards", keys(e.Rewards)}, {"stages", keys(e.Stages)}} {
		for _, n := range set.names {
			if len(n) > MaxNameLength {
				add(fmt.Sprintf("name of %d characters; names are at most %d (they become file names)", len(n), MaxNameLength), set.what, n)
			}
		}
	}
	return errs
}

// checkURL says what is wrong with an endpoint URL, if anything. A
// required tag left open (validate, show) reads as its placeholder and
// passes.
func checkURL(u string) error {
	if strings.HasPrefix(u, "@tag(") {
		return nil
	}
	if u == "" {
		return fmt.Errorf("empty")
	}
	for _, r := range u {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("holds white space or a control character")
		}
	}
	if !strings.Contains(u, "://") {
		return fmt.Errorf("no scheme (http:// or https://)")
	}
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("does not parse: %v", unwrapURLError(err))
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", p.Scheme)
	}
	if p.Host == "" || p.Hostname() == "" {
		return fmt.Errorf("no host")
	}
	if port := p.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %s is not in 1..65535", port)
		}
	} else if strings.HasSuffix(p.Host, ":") {
		return fmt.Errorf("empty port")
	}
	if _, _, err := net.SplitHostPort(p.Host); err != nil && strings.Count(p.Host, ":") > 1 && !strings.HasPrefix(p.Host, "[") {
		return fmt.Errorf("host %q is not a host name or address", p.Host)
	}
	if p.User != nil {
		return fmt.Errorf("holds credentials (use api_key_env)")
	}
	return nil
}

// unwrapURLError drops url.Error's repetition of the URL.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// parseTemplate parses a prompt template as the dialogue engine does
// (Go text/template, no functions of its own).
func parseTemplate(src string) error {
	if src == "" {
		return nil
	}
	if _, err := template.New("template").Option("missingkey=zero").Parse(src); err != nil {
		return fmt.Errorf("template does not parse: line %s", strings.TrimPrefix(err.Error(), "template: template:"))
	}
	return nil
}

func joinPath(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ".")
}

func selectorsOf(path []any) []cue.Selector {
	sel := make([]cue.Selector, len(path))
	for i, p := range path {
		switch p := p.(type) {
		case int:
			sel[i] = cue.Index(p)
		default:
			sel[i] = cue.Str(fmt.Sprint(p))
		}
	}
	return sel
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}
