package capsule

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

const embedPrefix = "embed:" // as stagekit reads it

// loadConfig loads a run's resolved config (JSON, which is CUE) through a
// .cue copy in dir.
func loadConfig(cfg json.RawMessage, dir string) (*schema.Loaded, error) {
	p := filepath.Join(dir, "run_config.cue")
	if err := os.WriteFile(p, cfg, 0o644); err != nil {
		return nil, fmt.Errorf("writing the run's config: %w", err)
	}
	l, err := schema.Load(p, runner.Default.Kinds(), schema.Options{})
	if err != nil {
		return nil, fmt.Errorf("loading the run's config: %w", err)
	}
	return l, nil
}

// dataUse is a path the config reads and what reads it.
type dataUse struct{ use, path string }

// dataPaths lists the paths exp reads: its datasets' and its pretraining
// stages' text, sorted by use.
func dataPaths(exp *schema.Experiment) ([]dataUse, []DataFile) {
	var out []dataUse
	var hub []DataFile
	for name, d := range exp.Datasets {
		switch {
		case d.Path != "":
			out = append(out, dataUse{"dataset " + name, d.Path})
		case d.HFID != "":
			hub = append(hub, DataFile{Use: "dataset " + name, Path: "hf:" + d.HFID,
				Note: "read from the Hugging Face hub: hashed by the hub, not packed"})
		}
	}
	for key, st := range exp.Stages {
		if st.Kind != "pretrain" {
			continue
		}
		var c struct {
			Text string `json:"text"`
		}
		if st.Decode(&c) == nil && c.Text != "" {
			out = append(out, dataUse{"stage " + key + " text", c.Text})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].use < out[j].use })
	return out, hub
}

// packData hashes every file the config reads and packs those that are
// not embedded in the binary (unless noData).
func packData(w *packer, exp *schema.Experiment, noData bool) ([]DataFile, error) {
	uses, out := dataPaths(exp)
	for i, u := range uses {
		if rest, ok := strings.CutPrefix(u.path, embedPrefix); ok {
			b, err := fs.ReadFile(experiments.Files, rest)
			if err != nil {
				return nil, fmt.Errorf("hashing %s (%s): %w", u.path, u.use, err)
			}
			out = append(out, DataFile{Use: u.use, Path: u.path, SHA256: sha(b), Bytes: int64(len(b)), Embedded: true})
			continue
		}
		files, err := localFiles(u.path)
		if err != nil {
			return nil, fmt.Errorf("hashing %s (%s): %w", u.path, u.use, err)
		}
		for _, rel := range files {
			full := u.path
			if rel != "" {
				full = filepath.Join(u.path, filepath.FromSlash(rel))
			}
			b, err := os.ReadFile(full)
			if err != nil {
				return nil, fmt.Errorf("hashing %s (%s): %w", full, u.use, err)
			}
			df := DataFile{Use: u.use, Path: u.path, File: rel, SHA256: sha(b), Bytes: int64(len(b))}
			if !noData {
				df.Member = fmt.Sprintf("%s%d/%s", dataDir, i, memberName(u.path, rel))
				w.put(df.Member, b)
			}
			out = append(out, df)
		}
	}
	return out, nil
}

// localFiles lists a data path's files: "" for a file, the regular files
// below a directory (slash-separated, sorted).
func localFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{""}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(p, q)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// memberName is where a data file goes under its data/N/ folder: its base
// name, or for a file in a dataset directory, that directory's base name
// and the file's path below it.
func memberName(p, rel string) string {
	base := filepath.Base(p)
	if rel == "" {
		return base
	}
	return base + "/" + path.Clean(rel)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// unpackData checks the data a capsule lists and unpacks what it carries
// under dir. It returns the Files map of the replay (config path -> local
// path) and, per path, why it differs from what the run read.
func unpackData(zr *zip.Reader, m *Manifest, dir string) (map[string]string, []string, error) {
	files := map[string]string{}
	var diffs []string
	for _, df := range m.Data {
		switch {
		case df.Note != "":
			diffs = append(diffs, fmt.Sprintf("%s (%s): %s", df.Path, df.Use, df.Note))
		case df.Embedded:
			b, err := fs.ReadFile(experiments.Files, strings.TrimPrefix(df.Path, embedPrefix))
			if err != nil || sha(b) != df.SHA256 {
				diffs = append(diffs, fmt.Sprintf("%s (%s): this mascot embeds another file than the run read", df.Path, df.Use))
			}
		case df.Member != "":
			b, err := readMember(zr, df.Member)
			if err != nil {
				return nil, nil, err
			}
			if sha(b) != df.SHA256 {
				return nil, nil, fmt.Errorf("the capsule's copy of %s is damaged (sha256 differs)", df.Member)
			}
			local := filepath.Join(dir, filepath.FromSlash(df.Member))
			if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
				return nil, nil, err
			}
			if err := os.WriteFile(local, b, 0o644); err != nil {
				return nil, nil, fmt.Errorf("unpacking %s: %w", df.Member, err)
			}
			// A dataset directory maps to the directory its files went to.
			target := local
			if df.File != "" {
				target = strings.TrimSuffix(local, string(filepath.Separator)+filepath.FromSlash(path.Clean(df.File)))
			}
			files[df.Path] = target
		default:
			full := df.Path
			if df.File != "" {
				full = filepath.Join(df.Path, filepath.FromSlash(df.File))
			}
			b, err := os.ReadFile(full)
			switch {
			case err != nil:
				return nil, nil, fmt.Errorf("the capsule holds no copy of %s (%s), and it cannot be read here: %w", full, df.Use, err)
			case sha(b) != df.SHA256:
				diffs = append(diffs, fmt.Sprintf("%s (%s): the file here is not the one the run read (sha256 differs)", full, df.Use))
			}
		}
	}
	return files, diffs, nil
}
