package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWritesAreAllKept: writers and a reader at once (run with
// -race to see the lock matter); every write is in the result whole.
func TestConcurrentWritesAreAllKept(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "ab\n"); got != 800 {
		t.Fatalf("%d whole writes, want 800", got)
	}
}
