package schema

import (
	"fmt"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// BuiltinPlugins returns the judge and metric plugin names the schema
// accepts without a command (#BuiltinJudge, #BuiltinMetric), so the plugin
// side can be checked against the language.
func BuiltinPlugins() (judges, metrics []string, err error) {
	ov, err := overlay(embeddedRoot, true, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("reading embedded schema: %w", err)
	}
	insts := load.Instances([]string{ImportPrefix + "/schema"}, &load.Config{Dir: embeddedRoot, Overlay: ov})
	if insts[0].Err != nil {
		return nil, nil, fmt.Errorf("loading embedded schema: %w", insts[0].Err)
	}
	sv := cuecontext.New().BuildInstance(insts[0])
	if sv.Err() != nil {
		return nil, nil, fmt.Errorf("building embedded schema: %w", sv.Err())
	}
	names := func(def string) ([]string, error) {
		v := sv.LookupPath(cue.ParsePath(def))
		op, alts := v.Expr()
		if op != cue.OrOp {
			alts = []cue.Value{v}
		}
		var out []string
		for _, a := range alts {
			s, err := a.String()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", def, err)
			}
			out = append(out, s)
		}
		sortStrings(out)
		return out, nil
	}
	if judges, err = names("#BuiltinJudge"); err != nil {
		return nil, nil, err
	}
	if metrics, err = names("#BuiltinMetric"); err != nil {
		return nil, nil, err
	}
	return judges, metrics, nil
}
