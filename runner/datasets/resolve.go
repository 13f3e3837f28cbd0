package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// splitAliases gives the file stems a split may carry.
func splitAliases(split string) []string {
	switch strings.ToLower(split) {
	case "valid", "validation", "dev", "val":
		return []string{"valid", "validation", "dev", "val"}
	default:
		return []string{strings.ToLower(split)}
	}
}

// candidate is a file or directory in a dataset directory that may hold
// the split; lower rank wins, then shallower, then name order.
type candidate struct {
	path  string
	rank  int
	depth int
}

// resolveIn turns p (a file or directory in fsys) into the file, or for
// QMSum the per-meeting directory, that holds the requested split.
func resolveIn(fsys fs.FS, p string, spec Spec) (string, error) {
	st, err := fs.Stat(fsys, p)
	if err != nil {
		return "", err
	}
	if !st.IsDir() || (spec.Name == QMSum && hasJSONFiles(fsys, p)) {
		// a file, or a QMSum per-meeting directory itself: its name must not
		// say it is another split than the one asked for
		if err := splitMismatch(path.Base(p), effectiveSplit(spec)); err != nil {
			return "", err
		}
		return p, nil
	}
	split := effectiveSplit(spec)
	var cands []candidate
	err = fs.WalkDir(fsys, p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(q, p), "/")
		depth := strings.Count(rel, "/")
		if d.IsDir() && q != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "blobs" || depth >= 3) {
			return fs.SkipDir
		}
		if q == p {
			return nil
		}
		if r, ok := rankEntry(fsys, q, d, spec.Name, split); ok {
			cands = append(cands, candidate{q, r, depth})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("no %s for split %q inside", wanted(spec.Name, split), orDefault(split))
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.path < b.path
	})
	return cands[0].path, nil
}

// splitNames are the file stems that name a split.
var splitNames = []string{"train", "test", "valid", "validation", "dev", "val"}

// splitMismatch refuses a file or directory whose name is a split other
// than split ("test.jsonl" for split train): reading it would train on
// evaluation data, or evaluate on training data.
func splitMismatch(base, split string) error {
	stem := strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))
	if split == "" || !slices.Contains(splitNames, stem) || slices.Contains(splitAliases(split), stem) {
		return nil
	}
	return fmt.Errorf("%w: %s holds the %s split, but split %q is asked for: give the directory holding the splits, or the %s file",
		ErrWrongSplit, base, stem, split, split)
}

// ErrWrongSplit is returned (wrapped) for a file or directory named after
// another split than the one asked for.
var ErrWrongSplit = errors.New("wrong split")

// effectiveSplit is the split a spec asks for: test when empty, except
// for esconv where empty means the whole corpus file.
func effectiveSplit(spec Spec) string {
	if spec.Split == "" && spec.Name != ESConv {
		return "test"
	}
	return spec.Split
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// rankEntry says whether q may hold the split for dataset name, and how
// much it is preferred (lower is better).
func rankEntry(fsys fs.FS, q string, d fs.DirEntry, name, split string) (int, bool) {
	base := strings.ToLower(d.Name())
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	isSplit := false
	for _, a := range splitAliases(split) {
		if stem == a {
			isSplit = true
		}
	}
	switch name {
	case QMSum:
		if d.IsDir() && isSplit && hasJSONFiles(fsys, q) {
			return 0, true // the per-meeting directory carries meeting ids
		}
		if !d.IsDir() && isSplit && ext == ".jsonl" {
			return 1, true
		}
	case ESConv:
		if d.IsDir() {
			return 0, false
		}
		if split == "" {
			switch {
			case base == "esconv.json":
				return 0, true
			case ext == ".json" && stem != "sample" && stem != "strategy":
				return 1, true
			case stem == "test" && (ext == ".txt" || ext == ".jsonl"):
				return 2, true
			}
			return 0, false
		}
		if isSplit && (ext == ".txt" || ext == ".jsonl" || ext == ".json") {
			return 0, true
		}
	case EmpatheticDialogues:
		if !d.IsDir() && isSplit && ext == ".csv" {
			return 0, true
		}
	case JSONL:
		if !d.IsDir() && isSplit && ext == ".jsonl" {
			return 0, true
		}
	}
	return 0, false
}

func wanted(name, split string) string {
	switch name {
	case QMSum:
		return split + "/ (per-meeting *.json) or " + split + ".jsonl"
	case ESConv:
		if split == "" {
			return "ESConv.json, other *.json or test.txt"
		}
		return split + ".txt, " + split + ".jsonl or " + split + ".json"
	case EmpatheticDialogues:
		return split + ".csv"
	default:
		return split + ".jsonl"
	}
}

// hasJSONFiles reports whether directory p directly holds *.json files.
func hasJSONFiles(fsys fs.FS, p string) bool {
	ents, err := fs.ReadDir(fsys, p)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".json") {
			return true
		}
	}
	return false
}
