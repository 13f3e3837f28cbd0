package schema

import (
	"fmt"
	"math"
	"strings"

	"cuelang.org/go/cue"
)

// intRange reports every concrete integer that does not fit the 64-bit
// integers the config decodes into; CUE integers are unbounded, so without
// this check a seed of 99999999999999999999 only fails while decoding, with
// no position.
func intRange(v cue.Value, rw posRewriter) Errors {
	var errs Errors
	v.Walk(func(x cue.Value) bool {
		if x.IncompleteKind() != cue.IntKind || !x.IsConcrete() {
			return true
		}
		if _, err := x.Int64(); err == nil {
			return true
		}
		var parts []string // the dotted form other errors use: agents.1.name
		for _, sel := range x.Path().Selectors() {
			switch {
			case sel.Type() == cue.IndexLabel:
				parts = append(parts, fmt.Sprint(sel.Index()))
			case sel.IsDefinition():
			default:
				parts = append(parts, sel.String())
			}
		}
		path := strings.Join(parts, ".")
		var poss []string
		if p := rw.pos(x.Pos()); p != "" {
			poss = []string{p}
		}
		errs = append(errs, Error{Path: path, Positions: poss,
			Msg: fmt.Sprintf("integer %v is out of range (%d to %d)", x, math.MinInt64, math.MaxInt64)})
		return true
	}, nil)
	return errs
}
