package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// EnvDatasets names a directory holding one folder per dataset
// (qmsum/, esconv/, empathetic_dialogues/), searched when a spec has no path.
const EnvDatasets = "MASCOT_DATASETS"

// defaultHF is the Hugging Face id searched in the local cache when a spec
// names neither a path nor an id.
var defaultHF = map[string]string{
	ESConv:              "thu-coai/esconv",
	EmpatheticDialogues: "facebook/empathetic_dialogues",
}

// NotFoundError reports a dataset that is on none of the places mascot
// looked; Error lists them and says how to provide the data.
type NotFoundError struct {
	Spec   Spec
	Looked []string // every place looked, with why it did not match
}

// Error implements error.
func (e *NotFoundError) Error() string {
	var b strings.Builder
	split := effectiveSplit(e.Spec)
	if split == "" {
		split = "default: ESConv.json or another *.json"
	}
	fmt.Fprintf(&b, "dataset %s (split %s) not found; mascot looked in:\n", e.Spec.Name, split)
	for _, l := range e.Looked {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	b.WriteString("provide it by one of:\n")
	b.WriteString("  - setting path in the experiment's dataset block to a file, or to a directory holding the split\n")
	hf := e.Spec.HF
	if hf == "" {
		hf = defaultHF[e.Spec.Name]
	}
	if hf != "" {
		fmt.Fprintf(&b, "  - downloading it into the Hugging Face cache: huggingface-cli download --repo-type dataset %s (HF_HUB_CACHE or HF_HOME say where the cache is)\n", strings.SplitN(hf, "@", 2)[0])
	} else {
		b.WriteString("  - setting hf to a dataset id already in the local Hugging Face cache (HF_HUB_CACHE or HF_HOME say where the cache is)\n")
	}
	fmt.Fprintf(&b, "  - setting %s to a directory that holds %s/", EnvDatasets, e.Spec.Name)
	return b.String()
}

// Locate returns the file or directory Load would parse for spec: Path
// (resolved to the split when it is a directory), else the snapshot of
// the HF id in the local Hugging Face cache, else $MASCOT_DATASETS/<name>.
// It is what a runner hashes to fingerprint the data.
func Locate(spec Spec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	nf := &NotFoundError{Spec: spec}
	if spec.Path != "" {
		return locateDir(spec.Path, spec, nf)
	}
	hf := spec.HF
	if hf == "" {
		hf = defaultHF[spec.Name]
	}
	if hf != "" {
		for _, root := range hubCaches() {
			snap, why := hfSnapshot(root, hf)
			if snap == "" {
				nf.Looked = append(nf.Looked, why)
				continue
			}
			if p, err := locateDir(snap, spec, nf); err == nil {
				return p, nil
			}
		}
	}
	if dir := os.Getenv(EnvDatasets); dir != "" {
		if p, err := locateDir(filepath.Join(dir, spec.Name), spec, nf); err == nil {
			return p, nil
		}
	} else {
		nf.Looked = append(nf.Looked, "$"+EnvDatasets+" (not set)")
	}
	return "", nf
}

// locateDir resolves p on disk; a miss is recorded in nf and returned.
func locateDir(p string, spec Spec, nf *NotFoundError) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	if _, err := os.Stat(abs); err != nil {
		nf.Looked = append(nf.Looked, fmt.Sprintf("%s (%s)", abs, statReason(err)))
		return "", nf
	}
	dir := filepath.Dir(abs)
	rel, err := resolveIn(os.DirFS(dir), filepath.Base(abs), spec)
	if err != nil {
		nf.Looked = append(nf.Looked, fmt.Sprintf("%s (%v)", abs, err))
		return "", nf
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

func statReason(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	return err.Error()
}

// hubCaches lists the Hugging Face hub cache directories to search, in
// the order huggingface_hub honours them, without duplicates.
func hubCaches() []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	add(os.Getenv("HF_HUB_CACHE"))
	add(os.Getenv("HUGGINGFACE_HUB_CACHE"))
	if h := os.Getenv("HF_HOME"); h != "" {
		add(filepath.Join(h, "hub"))
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		add(filepath.Join(x, "huggingface", "hub"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	return out
}

// hfSnapshot finds the snapshot directory of dataset id ("org/name" or
// "org/name@rev") under a hub cache root: refs/<rev> (default main) names
// the commit; without refs the newest snapshot is used. On a miss it
// returns "" and a description of where it looked.
func hfSnapshot(root, id string) (string, string) {
	name, rev, _ := strings.Cut(id, "@")
	repo := filepath.Join(root, "datasets--"+strings.ReplaceAll(name, "/", "--"))
	snaps := filepath.Join(repo, "snapshots")
	ents, err := os.ReadDir(snaps)
	if err != nil {
		return "", fmt.Sprintf("%s (%s)", snaps, statReason(err))
	}
	explicit := rev != ""
	if !explicit {
		rev = "main"
	}
	if b, err := os.ReadFile(filepath.Join(repo, "refs", rev)); err == nil {
		rev = strings.TrimSpace(string(b))
	}
	if st, err := os.Stat(filepath.Join(snaps, rev)); err == nil && st.IsDir() {
		return filepath.Join(snaps, rev), ""
	}
	if explicit {
		return "", fmt.Sprintf("%s (no snapshot for revision %s)", snaps, rev)
	}
	var best string
	var bestMod int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		if m := info.ModTime().UnixNano(); best == "" || m > bestMod || (m == bestMod && e.Name() > best) {
			best, bestMod = e.Name(), m
		}
	}
	if best == "" {
		return "", fmt.Sprintf("%s (no snapshot)", snaps)
	}
	return filepath.Join(snaps, best), ""
}

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
	if !st.IsDir() {
		return p, nil
	}
	if spec.Name == QMSum && hasJSONFiles(fsys, p) {
		return p, nil // a per-meeting directory itself
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
