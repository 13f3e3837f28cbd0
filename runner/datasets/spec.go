package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Dataset names accepted in Spec.Name.
const (
	QMSum               = "qmsum"
	ESConv              = "esconv"
	EmpatheticDialogues = "empathetic_dialogues"
	JSONL               = "jsonl"
)

// DefaultContextTurns is how many opening transcript turns a QMSum general
// query gets as context when Spec.ContextTurns is 0 (our choice: the median
// specific span is 27 turns, so 40 gives general queries a little more).
const DefaultContextTurns = 40

// Spec says which dataset to load and which part of it. It mirrors the
// experiment schema's #Dataset.
type Spec struct {
	// Name is qmsum, esconv, empathetic_dialogues or jsonl.
	Name string `json:"name"`
	// Path is a file or a directory. A directory is searched for the split.
	Path string `json:"path,omitempty"`
	// HF is a Hugging Face dataset id ("thu-coai/esconv", optionally
	// "@revision"), looked up in the local hub cache when Path is empty.
	HF string `json:"hf,omitempty"`
	// Split is train, valid (validation, dev), test, or empty for the
	// dataset's default (test; for esconv the whole ESConv.json if present).
	Split string `json:"split,omitempty"`
	// Limit keeps at most this many samples (0: all), chosen by Seed.
	Limit int `json:"limit,omitempty"`
	// Seed picks the subset when Limit is set.
	Seed int64 `json:"seed,omitempty"`
	// Filters keep only matching samples; applied before Limit.
	Filters Filters `json:"filters,omitzero"`
	// ContextTurns is the number of opening turns a QMSum general query
	// gets as context (0: DefaultContextTurns).
	ContextTurns int `json:"context_turns,omitempty"`
	// ExcludeIDs are sample IDs this load never returns (another dataset's
	// samples, e.g. training contexts drawn from the same split). They are
	// removed before Limit is drawn, so Limit samples still come back.
	ExcludeIDs []string `json:"exclude_ids,omitempty"`
}

// ErrEmpty is returned (wrapped) when a dataset yields no sample: an empty
// file, or filters nothing passes. A stage over it would otherwise finish
// "done" with nothing in it.
var ErrEmpty = errors.New("no samples")

// Filters keep samples whose field is one of the listed values (case
// insensitive). An empty list keeps everything; a sample with an empty
// field never matches a non-empty list.
type Filters struct {
	Valence []string `json:"valence,omitempty"` // positive | negative | neutral
	Domain  []string `json:"domain,omitempty"`  // academic | committee | product
	Emotion []string `json:"emotion,omitempty"` // dataset emotion labels
}

// Load finds the dataset the spec names on this machine, parses it, applies
// the filters and the seeded limit, and returns the samples in dataset
// order. A dataset that is not found is a *NotFoundError.
func Load(spec Spec) ([]Sample, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	loc, err := Locate(spec)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", loc, err)
	}
	return loadAt(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), abs, spec)
}

// LoadFS is Load for data inside fsys (for example the embedded demo
// data): spec.Path names a file or directory in fsys and is required; the
// Hugging Face cache is not consulted.
func LoadFS(fsys fs.FS, spec Spec) ([]Sample, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	p := path.Clean(strings.TrimPrefix(filepath.ToSlash(spec.Path), "./"))
	if spec.Path == "" || !fs.ValidPath(p) {
		return nil, fmt.Errorf("loading %s: LoadFS needs a path inside the file system, got %q", spec.Name, spec.Path)
	}
	if _, err := fs.Stat(fsys, p); err != nil {
		return nil, &NotFoundError{Spec: spec, Looked: []string{p + " (in the given file system)"}}
	}
	return loadAt(fsys, p, p, spec)
}

func (s Spec) validate() error {
	switch s.Name {
	case QMSum, ESConv, EmpatheticDialogues, JSONL:
	default:
		return fmt.Errorf("loading dataset: unknown name %q (want qmsum, esconv, empathetic_dialogues or jsonl)", s.Name)
	}
	if s.Limit < 0 {
		return fmt.Errorf("loading %s: limit %d is negative", s.Name, s.Limit)
	}
	if s.ContextTurns < 0 {
		return fmt.Errorf("loading %s: context_turns %d is negative", s.Name, s.ContextTurns)
	}
	return s.Filters.validate()
}

// loadAt parses the dataset at p (file or directory) in fsys, then
// filters and samples; display names p in errors.
func loadAt(fsys fs.FS, p, display string, spec Spec) ([]Sample, error) {
	file, err := resolveIn(fsys, p, spec)
	if err != nil {
		return nil, err
	}
	var all []Sample
	switch spec.Name {
	case QMSum:
		all, err = loadQMSum(fsys, file, spec.contextTurns())
	case ESConv:
		all, err = loadESConv(fsys, file)
	case EmpatheticDialogues:
		all, err = loadED(fsys, file)
	case JSONL:
		all, err = loadJSONL(fsys, file)
	}
	if err != nil {
		return nil, fmt.Errorf("loading %s from %s: %w", spec.Name, displayName(p, display, file), err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("loading %s from %s: %w", spec.Name, displayName(p, display, file), ErrEmpty)
	}
	if len(spec.ExcludeIDs) > 0 {
		drop := make(map[string]bool, len(spec.ExcludeIDs))
		for _, id := range spec.ExcludeIDs {
			drop[id] = true
		}
		all = slices.DeleteFunc(all, func(s Sample) bool { return drop[s.ID] })
	}
	kept := Select(all, spec.Filters, spec.Limit, spec.Seed)
	if len(kept) == 0 {
		return nil, fmt.Errorf("loading %s from %s: %w: none of its %d samples pass the filters",
			spec.Name, displayName(p, display, file), ErrEmpty, len(all))
	}
	return kept, nil
}

func (s Spec) contextTurns() int {
	if s.ContextTurns > 0 {
		return s.ContextTurns
	}
	return DefaultContextTurns
}

// displayName names file (inside directory or file p of an fs.FS) the way
// the user gave p, for error messages.
func displayName(p, display, file string) string {
	if file == p {
		return display
	}
	return display + "/" + strings.TrimPrefix(file, p+"/")
}
