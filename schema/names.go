package schema

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/format"
)

// namedMaps are the top-level fields whose keys are #Identifier names, with
// what one entry is called in messages.
var namedMaps = map[string]string{
	"datasets": "dataset", "rosters": "roster", "endpoints": "endpoint", "judges": "judge",
	"metrics": "metric", "rewards": "reward", "stages": "stage",
}

// identifierRule renders #Identifier from the schema ("=~\"^[a-z]...$\"")
// so messages quote the one rule the schema enforces.
func identifierRule(schemaValue cue.Value) string {
	b, err := format.Node(schemaValue.LookupPath(cue.ParsePath("#Identifier")).Syntax())
	if err != nil {
		return "#Identifier"
	}
	return strings.TrimSpace(string(b))
}

// nameErrors turns CUE's "field not allowed" on a key of a named map (a
// stage called "../x") into a message that says the name is the problem.
func nameErrors(errs Errors, rule string) Errors {
	for i, e := range errs {
		top, rest, _ := strings.Cut(e.Path, ".")
		what, named := namedMaps[top]
		key, single := oneLabel(rest)
		if !named || !single || e.Msg != "field not allowed" {
			continue
		}
		errs[i].Msg = fmt.Sprintf("invalid %s name %q: names are identifiers (%s), they become directory names",
			what, key, rule)
	}
	return errs
}

// oneLabel reports whether s is exactly one CUE path label (quoted when
// it holds dots) and returns it unquoted.
func oneLabel(s string) (string, bool) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil || q != s {
			return "", false
		}
		u, err := strconv.Unquote(q)
		return u, err == nil
	}
	return s, s != "" && !strings.Contains(s, ".")
}

var (
	pluginPath  = regexp.MustCompile(`^(judges|metrics)\.(.+)\.plugin$`)
	quotedValue = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// pluginErrors turns a plugin name outside #BuiltinJudge or #BuiltinMetric
// (with no command to run instead) into one message that lists the
// built-in plugins, read from the schema.
func pluginErrors(errs Errors, schemaValue cue.Value) Errors {
	for i, e := range errs {
		m := pluginPath.FindStringSubmatch(e.Path)
		if m == nil {
			continue
		}
		def, what := "#BuiltinMetric", "metric"
		if m[1] == "judges" {
			def, what = "#BuiltinJudge", "judge"
		}
		builtins := map[string]bool{}
		b, err := format.Node(schemaValue.LookupPath(cue.ParsePath(def)).Syntax())
		if err != nil {
			continue
		}
		var names []string
		for _, q := range quotedValue.FindAllString(string(b), -1) {
			builtins[q] = true
			names = append(names, q)
		}
		given := ""
		for _, q := range quotedValue.FindAllString(e.Msg, -1) {
			if !builtins[q] {
				given = q
				break
			}
		}
		if given == "" {
			continue
		}
		errs[i].Msg = fmt.Sprintf("unknown %s plugin %s (built-in: %s; a third-party plugin needs command)",
			what, given, strings.Join(names, ", "))
		var user []string // schema positions vary with CUE's evaluation order
		for _, p := range e.Positions {
			if !strings.HasPrefix(p, ImportPrefix+"/") {
				user = append(user, p)
			}
		}
		errs[i].Positions = user
	}
	return errs
}
