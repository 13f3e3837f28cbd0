package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MaxSpecBytes bounds the CUE of the spec mascot is asked to load: the
// .cue files of its package (the file named, or those of the directory).
// CUE reads and evaluates all of it before it can say what is wrong, in
// time and memory that grow with its size (docs/benchmarks.md, "Spec
// loading"); the specs mascot ships are a few kB each.
const MaxSpecBytes = 1 << 20

// checkSpecSize refuses a spec whose package (the file at local, or the
// .cue files of directory local) holds more than MaxSpecBytes, before
// anything is parsed.
func checkSpecSize(cwd, local string, dir bool) error {
	files := []string{local}
	if dir {
		entries, err := os.ReadDir(local)
		if err != nil {
			return fmt.Errorf("listing %s: %w", local, err)
		}
		files = files[:0]
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".cue") {
				files = append(files, filepath.Join(local, e.Name()))
			}
		}
	}
	var total int64
	var largest string
	var most int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			continue // CUE says what is wrong with it
		}
		total += st.Size()
		if st.Size() > most {
			largest, most = f, st.Size()
		}
	}
	if total <= MaxSpecBytes {
		return nil
	}
	if rel, err := filepath.Rel(cwd, largest); err == nil && !strings.HasPrefix(rel, "..") {
		largest = rel
	}
	return Errors{{Msg: fmt.Sprintf("the spec is %.1f MiB of CUE (largest file %.1f MiB); a spec may hold at most %d MiB, checked before it is read",
		float64(total)/(1<<20), float64(most)/(1<<20), MaxSpecBytes>>20), Positions: []string{largest + ":1:1"}}}
}
