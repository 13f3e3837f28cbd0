package hugemem

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// hugeFlagged sums the sizes of this process's mappings that carry the
// huge-page advice ("hg" among their VmFlags in /proc/self/smaps).
func hugeFlagged(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, size := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "Size:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("smaps: %q", line)
			}
			size = kb << 10
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+v+" ", " hg ") {
			total += size
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// thp says whether the kernel was built with transparent huge pages.
func thp() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage")
	return err == nil
}

func TestAdviseHeapMarksWholeHugePages(t *testing.T) {
	before := hugeFlagged(t)
	n, err := AdviseHeap(ProcessBytes)
	if !thp() {
		// A kernel built without THP refuses the advice.
		if !errors.Is(err, unix.EINVAL) || n != 0 {
			t.Fatalf("without THP: AdviseHeap = %d, %v; want 0, EINVAL", n, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// At most one huge page is lost to the block's alignment.
	if n < ProcessBytes-pageBytes || n > ProcessBytes || n%pageBytes != 0 {
		t.Fatalf("advised %d bytes of %d, want whole huge pages within them", n, ProcessBytes)
	}
	if got := hugeFlagged(t) - before; got < n {
		t.Fatalf("mappings flagged for huge pages grew by %d bytes, want at least the %d advised", got, n)
	}
	if n, err := AdviseHeap(pageBytes); n != 0 || err != nil {
		t.Errorf("a block without two huge pages: AdviseHeap = %d, %v; want 0, nil", n, err)
	}
}

func TestAdviseProcessHonoursTheSwitch(t *testing.T) {
	for _, v := range []string{"0", "off", "false"} {
		t.Setenv(OffEnv, v)
		if n := AdviseProcess(); n != 0 {
			t.Errorf("%s=%s: advised %d bytes, want none", OffEnv, v, n)
		}
	}
	t.Setenv(OffEnv, "")
	if n := AdviseProcess(); thp() && n == 0 {
		t.Errorf("%s unset: advised nothing", OffEnv)
	}
}
