package dl

import (
	"strings"
	"testing"
)

func TestOpenLibcAndResolve(t *testing.T) {
	l, err := Open([]string{"libc.so.6"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sym("strlen"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Syms("strlen", "no_such_symbol_mascot"); err == nil || !strings.Contains(err.Error(), "no_such_symbol_mascot") {
		t.Fatalf("missing symbol not reported: %v", err)
	}
}

func TestOpenNamesEveryAttempt(t *testing.T) {
	dir := t.TempDir()
	_, err := Open([]string{"libmascot-absent.so.1"}, []string{dir})
	if err == nil {
		t.Fatal("opened a library that does not exist")
	}
	for _, want := range []string{"libmascot-absent.so.1", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestSplitDirs(t *testing.T) {
	got := SplitDirs(" /a/lib::/b ")
	if len(got) != 2 || got[0] != "/a/lib" || got[1] != "/b" {
		t.Fatalf("SplitDirs = %q", got)
	}
}
