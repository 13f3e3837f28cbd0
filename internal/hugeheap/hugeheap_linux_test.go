package hugeheap

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeMode points enabledPath at a file that says mode for the test.
func fakeMode(t *testing.T, contents string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "enabled")
	if err := os.WriteFile(p, []byte(contents), 0o644); err != nil {
		t.Fatal(err)
	}
	old := enabledPath
	enabledPath = p
	t.Cleanup(func() { enabledPath = old })
}

func TestModeReadsTheBracketedChoice(t *testing.T) {
	for contents, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]\n": "never",
		"always madvise never\n":   "",
		"":                         "",
	} {
		fakeMode(t, contents)
		if got := mode(); got != want {
			t.Errorf("mode of %q = %q, want %q", contents, got, want)
		}
	}
	enabledPath = filepath.Join(t.TempDir(), "missing")
	if got := mode(); got != "" {
		t.Errorf("mode of a missing file = %q, want empty", got)
	}
}

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

func TestAdviseMarksWholeHugePagesOfTheHeap(t *testing.T) {
	fakeMode(t, "always [madvise] never\n")
	before := hugeFlagged(t)
	n, err := Advise(ProcessBytes)
	if _, statErr := os.Stat("/sys/kernel/mm/transparent_hugepage"); errors.Is(statErr, os.ErrNotExist) {
		// A kernel built without THP refuses the advice.
		if !errors.Is(err, unix.EINVAL) || n != 0 {
			t.Fatalf("without THP: Advise = %d, %v; want 0, EINVAL", n, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// At most one huge page is lost at each end to alignment.
	if n < ProcessBytes-2*hugePage || n > ProcessBytes || n%hugePage != 0 {
		t.Fatalf("advised %d bytes of %d, want whole huge pages within them", n, ProcessBytes)
	}
	if got := hugeFlagged(t) - before; got < n {
		t.Fatalf("mappings flagged for huge pages grew by %d bytes, want at least the %d advised", got, n)
	}
}

func TestAdviseOnlyInMadviseMode(t *testing.T) {
	for _, m := range []string{"[always] madvise never\n", "always madvise [never]\n", "garbage"} {
		fakeMode(t, m)
		if n, err := Advise(ProcessBytes); n != 0 || err != nil {
			t.Errorf("mode %q: Advise = %d, %v; want 0, nil", m, n, err)
		}
	}
}

func TestAdviseProcessHonoursTheSwitch(t *testing.T) {
	fakeMode(t, "always [madvise] never\n")
	for _, v := range []string{"0", "off", "false"} {
		t.Setenv(OffEnv, v)
		if n := AdviseProcess(); n != 0 {
			t.Errorf("%s=%s: advised %d bytes, want none", OffEnv, v, n)
		}
	}
	t.Setenv(OffEnv, "")
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err == nil {
		if n := AdviseProcess(); n == 0 {
			t.Errorf("%s unset: advised nothing", OffEnv)
		}
	}
}
