package schema

import (
	"fmt"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
)

// identifier is #Identifier compiled on its own from the embedded schema
// (experiment.cue), so code that makes a name outside a spec (a stage key
// given on the command line) checks it against the schema's one rule.
var identifier = sync.OnceValues(func() (cue.Value, error) {
	src, err := Files.ReadFile("experiment.cue")
	if err != nil {
		return cue.Value{}, err
	}
	f, err := parser.ParseFile("experiment.cue", src)
	if err != nil {
		return cue.Value{}, err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if id, ok := fd.Label.(*ast.Ident); ok && id.Name == "#Identifier" {
			b, err := format.Node(fd.Value)
			if err != nil {
				return cue.Value{}, err
			}
			v := cuecontext.New().CompileBytes(b)
			return v, v.Err()
		}
	}
	return cue.Value{}, fmt.Errorf("experiment.cue defines no #Identifier")
})

// CheckIdentifier reports whether name is an #Identifier (the form of the
// names of stages, datasets, judges ...: they become directory names).
func CheckIdentifier(name string) error {
	rule, err := identifier()
	if err != nil {
		return fmt.Errorf("reading #Identifier: %w", err)
	}
	v := cuecontext.New().Encode(name).Unify(rule)
	if err := v.Validate(cue.Concrete(true)); err != nil {
		b, _ := format.Node(rule.Syntax())
		return fmt.Errorf("%q is not a name (names match %s)", name, b)
	}
	return nil
}
