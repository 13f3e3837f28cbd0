package schema

import (
	"strings"
	"testing"
)

// TestSetWithCommasHintsAtMultirun: "--set k=2,3" on a number field says
// to use -m; a comma in a string field or a plain type error gets no hint.
func TestSetWithCommasHintsAtMultirun(t *testing.T) {
	errs := Errors{
		{Path: "stages.eval.turns", Msg: `conflicting values 2 and "2,3" (mismatched types int and string)`},
		{Path: "name", Msg: `conflicting values "a" and "b"`},
	}
	got := multirunHints(errs, []string{"stages.eval.turns=2,3", "name=b,c"})
	if !strings.Contains(got[0].Msg, "-m stages.eval.turns=2,3") {
		t.Fatalf("no multirun hint: %s", got[0].Msg)
	}
	if strings.Contains(got[1].Msg, "-m") {
		t.Fatalf("hint on an error that is no type mismatch: %s", got[1].Msg)
	}
	plain := multirunHints(Errors{{Path: "stages.eval.turns", Msg: "mismatched types int and string"}}, []string{"stages.eval.turns=x"})
	if strings.Contains(plain[0].Msg, "-m") {
		t.Fatalf("hint without a comma in the value: %s", plain[0].Msg)
	}
}
