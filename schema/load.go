package schema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// Options are the user's overrides for one load.
type Options struct {
	// Tags are -t key=value injections into @tag fields.
	Tags []string
	// Sets are --set path=value overrides unified into the config.
	Sets []string
	// Overrides are path=value overrides that replace what the
	// experiment's own files write at path (sweep axes and `mascot run
	// -m`; see override.go), then unify like Sets.
	Overrides []string
	// Cwd is the directory relative paths and error positions are taken
	// from; empty means the process's working directory.
	Cwd string
	// OpenTags loads a config whose required tags are not all given (show,
	// validate, plan): each such string tag reads as its OpenValue and is
	// listed in Loaded.Open instead of being an error.
	OpenTags bool
}

// Loaded is a resolved, validated experiment.
type Loaded struct {
	// Name is the embedded name or the file/dir argument.
	Name string
	// Value is the resolved CUE value (schema unified with the spec).
	Value cue.Value
	// Experiment is the decoded config.
	Experiment *Experiment
	// Canonical is the resolved config as JSON with sorted keys.
	Canonical []byte
	// Tags are the tags the config declares, required ones first.
	Tags []Tag
	// Open names the required tags left open (Options.OpenTags), which
	// read as their OpenValue; a run needs them set.
	Open []string
	rw   posRewriter
}

// Positions returns where the value at the field path was written (file:
// line:col, most relevant first, in the form errors print them), for
// checks made after loading (a run's preflight) to point at the user's
// file. A value the spec leaves at its schema default points into the
// schema (mascot.dev/schema/...); one with no source at all has none.
func (l *Loaded) Positions(path ...string) []string {
	sel := make([]cue.Selector, len(path))
	for i, p := range path {
		sel[i] = cue.Str(p)
	}
	if p := l.rw.pos(l.Value.LookupPath(cue.MakePath(sel...)).Pos()); p != "" {
		return []string{p}
	}
	return nil
}

// Load resolves arg — an embedded name such as "paper/qmsum", a .cue file
// or a directory — against the stage kinds given, applies opts and
// validates the result. Every problem is returned at once as Errors.
func Load(arg string, kinds *Kinds, opts Options) (*Loaded, error) {
	cwd := opts.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("finding working directory: %w", err)
		}
	}
	l := &loader{cwd: cwd, opts: opts, kinds: kinds, ctx: cuecontext.New()}
	return l.load(arg)
}

type loader struct {
	cwd   string
	opts  Options
	kinds *Kinds
	ctx   *cue.Context
	rw    posRewriter
}

func (l *loader) load(arg string) (*Loaded, error) {
	cfg, args, err := l.config(arg)
	if err != nil {
		return nil, err
	}
	insts := load.Instances(args, cfg)
	if len(insts) != 1 {
		return nil, Errors{{Msg: fmt.Sprintf("expected one CUE package in %s, found %d", arg, len(insts))}}
	}
	inst := insts[0]
	if inst.Err != nil {
		return nil, l.rw.fromCUE(inst.Err)
	}
	tags := instanceTags(inst)
	given := l.opts.Tags
	var open []string
	if l.opts.OpenTags {
		var inject []string
		if inject, open = openTagValues(tags, given); len(inject) > 0 {
			given = append(slices.Clone(given), inject...)
			cfg.Tags = given
			if inst = load.Instances(args, cfg)[0]; inst.Err != nil {
				return nil, l.rw.fromCUE(inst.Err)
			}
		}
	}
	missing := missingTags(tags, given, l.rw)
	overrides, oerrs := l.applyOverrides(inst)
	user := l.ctx.BuildInstance(inst)

	schemaCfg := *cfg
	schemaCfg.Tags = nil
	sInsts := load.Instances([]string{ImportPrefix + "/schema"}, &schemaCfg)
	if sInsts[0].Err != nil {
		return nil, fmt.Errorf("loading embedded schema: %w", sInsts[0].Err)
	}
	sv := l.ctx.BuildInstance(sInsts[0])
	if sv.Err() != nil {
		return nil, fmt.Errorf("building embedded schema: %w", sv.Err())
	}
	v := sv.LookupPath(cue.ParsePath("#Experiment")).Unify(user)

	errs := oerrs
	for _, o := range overrides {
		v = v.Unify(o)
	}
	for _, s := range l.opts.Sets {
		sv, serr := l.override(s)
		if serr != nil {
			errs = append(errs, *serr)
			continue
		}
		v = v.Unify(sv)
	}
	errs = append(errs, missing...)
	if err := v.Validate(cue.Concrete(true)); err != nil {
		errs = append(errs, anchor(pluginErrors(nameErrors(tidy(dropTagNoise(l.rw.fromCUE(err), missing)), identifierRule(sv)), sv), func(path string) string {
			return l.rw.pos(v.LookupPath(cue.ParsePath(path)).Pos())
		})...)
	}
	if len(errs) == 0 {
		errs = intRange(v, l.rw)
	}
	if len(errs) > 0 {
		return nil, multirunHints(errs, l.opts.Sets)
	}
	exp, err := decode(v)
	if err != nil {
		return nil, Errors{{Msg: "decoding experiment: " + err.Error()}}
	}
	exp.Kinds = l.kinds
	if errs := check(exp, v, l.rw); len(errs) > 0 {
		return nil, errs
	}
	canon, err := Canonical(v)
	if err != nil {
		return nil, fmt.Errorf("encoding canonical config: %w", err)
	}
	return &Loaded{Name: arg, Value: v, Experiment: exp, Canonical: canon, Tags: uniqueTags(tags), Open: open, rw: l.rw}, nil
}

// config builds the load configuration and arguments for arg.
func (l *loader) config(arg string) (*load.Config, []string, error) {
	local := arg
	if !filepath.IsAbs(local) {
		local = filepath.Join(l.cwd, arg)
	}
	st, statErr := os.Stat(local)
	if statErr != nil || (!st.IsDir() && !strings.HasSuffix(arg, ".cue")) {
		if !IsEmbedded(arg) {
			return nil, nil, Errors{{Msg: fmt.Sprintf("no experiment %q: not a .cue file or directory, and not an embedded name (see `mascot list`)", arg)}}
		}
		ov, err := overlay(embeddedRoot, true, l.kinds)
		if err != nil {
			return nil, nil, fmt.Errorf("reading embedded experiments: %w", err)
		}
		l.rw = posRewriter{prefixes: map[string]string{genDir(embeddedRoot) + "/": ImportPrefix + "/"}}
		return &load.Config{Dir: embeddedRoot, Overlay: ov, Tags: l.opts.Tags},
			[]string{ImportPath(arg)}, nil
	}
	if err := checkSpecSize(l.cwd, local, st.IsDir()); err != nil {
		return nil, nil, err
	}
	dir, args := local, []string{"."}
	if !st.IsDir() {
		dir, args = filepath.Dir(local), []string{"./" + filepath.Base(local)}
	}
	modRoot, ok := findModRoot(dir)
	if !ok {
		modRoot = dir
	}
	ov, err := overlay(modRoot, !ok, l.kinds)
	if err != nil {
		return nil, nil, fmt.Errorf("reading embedded experiments: %w", err)
	}
	l.rw = posRewriter{cwd: l.cwd, prefixes: map[string]string{genDir(modRoot) + "/": ImportPrefix + "/"}}
	return &load.Config{Dir: dir, ModuleRoot: modRoot, Overlay: ov, Tags: l.opts.Tags}, args, nil
}

// override compiles one --set path=value into a CUE value to unify.
func (l *loader) override(s string) (cue.Value, *Error) {
	bad := func(msg string) (cue.Value, *Error) {
		return cue.Value{}, &Error{Path: "--set", Msg: fmt.Sprintf("%s in %q", msg, s)}
	}
	key, val, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return bad("want path=value")
	}
	p := cue.ParsePath(key)
	if p.Err() != nil {
		return bad("invalid path " + key)
	}
	expr := val
	if x := l.ctx.CompileString(val); x.Err() != nil {
		b, _ := json.Marshal(val)
		expr = string(b)
	}
	sels := p.Selectors()
	var b strings.Builder
	for _, sel := range sels {
		if sel.Type() != cue.StringLabel {
			return bad("only field names are allowed in a --set path")
		}
		b.WriteString(sel.String())
		b.WriteString(": ")
	}
	b.WriteString(expr)
	v := l.ctx.CompileString(b.String(), cue.Filename("--set "+key))
	if v.Err() != nil {
		return bad("invalid value " + val)
	}
	return v, nil
}

// dropTagNoise removes "incomplete value" errors caused by a missing tag,
// which is already reported by name.
func dropTagNoise(errs, missing Errors) Errors {
	if len(missing) == 0 {
		return errs
	}
	// Values left open by a missing tag (server URLs) are reported by the
	// tag's name; their "incomplete value" echoes would only repeat it.
	var out Errors
	for _, e := range errs {
		if strings.HasPrefix(e.Msg, "incomplete value") {
			continue
		}
		out = append(out, e)
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
