package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mascot.dev/mascot/runner/hfhub"
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
		for _, root := range hfhub.Roots() {
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
	if errors.Is(err, ErrWrongSplit) {
		return "", fmt.Errorf("reading %s: %w", abs, err) // found, but the wrong data: say so, not "not found"
	}
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
