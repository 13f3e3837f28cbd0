package dl

import (
	"fmt"
	"strings"
	"sync"
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

// TestErrorsAreTheirOwn: the loader's message in an error is the one of
// the call that failed, while other goroutines fail to load other
// libraries at the same time. dlerror's state belongs to the OS thread,
// and a goroutine may move to another thread between two cgo calls: the
// message was read in a call of its own and could be another call's.
func TestErrorsAreTheirOwn(t *testing.T) {
	const workers, tries = 8, 300
	libc, err := Open([]string{"libc.so.6"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("libmascot-absent-%d.so", w)
			for range tries {
				_, err := Open([]string{name}, nil)
				if err == nil || !strings.HasSuffix(err.Error(), ": "+name+": cannot open shared object file: No such file or directory") {
					errs <- fmt.Sprintf("opening %s: %v", name, err)
					return
				}
				if _, err := libc.Sym(name); err == nil || !strings.Contains(err.Error(), "undefined symbol: "+name) {
					errs <- fmt.Sprintf("resolving %s: %v", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
