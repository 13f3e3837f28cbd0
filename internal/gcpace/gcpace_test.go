package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// percent reads the collector's target without changing it.
func percent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// withPercent runs f from percent pct and puts the process's back after.
func withPercent(pct int, f func()) {
	old := debug.SetGCPercent(pct)
	defer debug.SetGCPercent(old)
	f()
}

func TestPercentGivesHeadroom(t *testing.T) {
	for _, c := range []struct {
		live  uint64
		floor int
		want  int
	}{
		{0, 100, maxPercent},
		{1 << 20, 100, maxPercent}, // 6,400 % capped
		{16 << 20, 100, 400},       // 16 MiB live: collect at 80 MiB
		{Headroom, 100, 100},       // Go's default from here on
		{4 * Headroom, 100, 100},
		{4 * Headroom, 300, 300}, // an import's floor
		{16 << 20, 300, 400},
	} {
		if got := percentFor(c.live, c.floor); got != c.want {
			t.Errorf("percentFor(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

func TestRaiseSetsAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	withPercent(100, func() {
		runtime.GC()
		restore := Raise(100)
		if got := percent(); got <= 100 {
			t.Errorf("during Raise with a small heap: GC percent %d, want more than 100", got)
		}
		restore()
		restore() // a second call is a no-op
		if got := percent(); got != 100 {
			t.Errorf("after restore: GC percent %d, want 100", got)
		}
	})
}

// A heap that grows past Headroom while Raise is in effect is collected at
// Go's default target again after the next collection.
func TestRaiseFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	withPercent(100, func() {
		runtime.GC()
		restore := Raise(100)
		defer restore()
		small := percent()
		if small <= 100 {
			t.Fatalf("with a small heap: GC percent %d, want more than 100", small)
		}
		big := make([]byte, 2*Headroom)
		for i := range big {
			big[i] = byte(i)
		}
		deadline := time.Now().Add(30 * time.Second) // the hook runs on the finalizer goroutine
		for percent() != 100 && time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		if got := percent(); got != 100 {
			t.Errorf("with %d MiB live: GC percent %d, want 100", len(big)>>20, got)
		}
		runtime.KeepAlive(big)
	})
}

func TestRaiseNests(t *testing.T) {
	t.Setenv("GOGC", "")
	withPercent(100, func() {
		runtime.GC() // the live heap an earlier test left is garbage now
		outer := Raise(100)
		inner := Raise(100)
		outer() // the concurrent run that started first ends first
		if got := percent(); got <= 100 {
			t.Errorf("while one call is still open: GC percent %d, want more than 100", got)
		}
		inner()
		if got := percent(); got != 100 {
			t.Errorf("after both: GC percent %d, want 100", got)
		}
	})
}

func TestRaiseLeavesWhatTheUserSet(t *testing.T) {
	t.Run("GOGC in the environment", func(t *testing.T) {
		t.Setenv("GOGC", "50")
		withPercent(50, func() {
			restore := Raise(100)
			defer restore()
			if got := percent(); got != 50 {
				t.Errorf("GC percent %d, want the user's 50", got)
			}
		})
	})
	for _, start := range []int{800, -1} {
		t.Run("a percent set higher or off", func(t *testing.T) {
			t.Setenv("GOGC", "")
			withPercent(start, func() {
				restore := Raise(100)
				runtime.GC()
				if got := percent(); got != start {
					t.Errorf("GC percent %d, want %d left alone", got, start)
				}
				restore()
				if got := percent(); got != start {
					t.Errorf("after restore: GC percent %d, want %d", got, start)
				}
			})
		})
	}
}
