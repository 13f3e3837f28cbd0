package schema

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/load"

	"mascot.dev/mascot/experiments"
)

// ImportPrefix is the CUE module path of the embedded packages.
const ImportPrefix = "mascot.dev"

// languageVersion is the CUE language version synthetic modules declare.
const languageVersion = "v0.17.0"

// embeddedRoot is the virtual directory embedded names are loaded from.
const embeddedRoot = "/mascot-embedded"

// genDir is where the embedded packages are overlaid inside a module.
func genDir(modRoot string) string {
	return filepath.Join(modRoot, "cue.mod", "gen", ImportPrefix)
}

// embeddedFiles lists the embedded CUE packages as (import-relative path,
// contents): "schema/experiment.cue", "experiments/paper/qmsum/qmsum.cue".
func embeddedFiles() (map[string][]byte, error) {
	out := map[string][]byte{}
	add := func(fsys fs.FS, prefix string) error {
		return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".cue") {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			out[path.Join(prefix, p)] = b
			return nil
		})
	}
	if err := add(Files, "schema"); err != nil {
		return nil, err
	}
	if err := add(experiments.Files, "experiments"); err != nil {
		return nil, err
	}
	return out, nil
}

// schemaFiles are the embedded packages with the stage union over kinds
// and each kind's CUE beside the schema files.
func schemaFiles(kinds *Kinds) (map[string][]byte, error) {
	files, err := embeddedFiles()
	if err != nil {
		return nil, err
	}
	for rel, b := range kinds.files() {
		files[rel] = b
	}
	return files, nil
}

// overlay places the embedded packages, with kinds, under modRoot's
// cue.mod/gen, and a synthetic cue.mod/module.cue when the directory has
// none.
func overlay(modRoot string, synthetic bool, kinds *Kinds) (map[string]load.Source, error) {
	files, err := schemaFiles(kinds)
	if err != nil {
		return nil, err
	}
	ov := make(map[string]load.Source, len(files)+1)
	for rel, b := range files {
		ov[filepath.Join(genDir(modRoot), filepath.FromSlash(rel))] = load.FromBytes(b)
	}
	if synthetic {
		mod := "module: \"user.local@v0\"\nlanguage: version: \"" + languageVersion + "\"\n"
		ov[filepath.Join(modRoot, "cue.mod", "module.cue")] = load.FromString(mod)
	}
	return ov, nil
}

// findModRoot returns the nearest directory at or above dir holding
// cue.mod/module.cue.
func findModRoot(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "cue.mod", "module.cue")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// EmbeddedNames lists the embedded experiment packages by name ("demo",
// "paper/qmsum"): every directory holding .cue files except the shared
// libraries (rosters, prompts, paper/base).
func EmbeddedNames() ([]string, error) {
	files, err := embeddedFiles()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for rel := range files {
		if !strings.HasPrefix(rel, "experiments/") {
			continue
		}
		dir := strings.TrimPrefix(path.Dir(rel), "experiments/")
		if isLibrary(dir) || seen[dir] {
			continue
		}
		seen[dir] = true
		names = append(names, dir)
	}
	sortStrings(names)
	return names, nil
}

func isLibrary(dir string) bool {
	switch {
	case dir == "personas", dir == "prompts", dir == "paper/base",
		strings.HasPrefix(dir, "demo/data"):
		return true
	}
	return false
}

// IsEmbedded reports whether name is an embedded experiment.
func IsEmbedded(name string) bool {
	names, err := EmbeddedNames()
	if err != nil {
		return false
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
