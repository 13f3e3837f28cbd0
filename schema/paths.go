package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue"
)

// LocalPaths maps each relative path the spec writes where mascot reads a
// file (a dataset's path, a pretrain stage's text, an endpoint's
// model_dir, a plugin command with a "/" in it) to the path mascot reads:
// the path taken from the folder of the spec file that writes it, so a
// spec runs the same from any working directory and never runs the
// current folder's ./myplug.sh. A path given on the command line (-t,
// --set), written in an embedded experiment or left to the schema is
// taken from the working directory the spec was loaded in. A
// run_config.json loaded back (a Slurm shard, a chat) carries the map of
// the run that wrote it (mascot.paths), which wins.
func (l *Loaded) LocalPaths() map[string]string {
	out := map[string]string{}
	if l == nil || l.Experiment == nil {
		return out
	}
	add := func(p string, field ...any) {
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "embed:") {
			return
		}
		dir := l.baseDir(field...)
		if dir == "" {
			dir = l.cwd
		}
		if _, seen := out[p]; !seen && dir != "" {
			out[p] = filepath.Join(dir, p)
		}
	}
	e := l.Experiment
	for _, n := range keys(e.Datasets) {
		add(e.Datasets[n].Path, "datasets", n, "path")
	}
	for _, n := range keys(e.Endpoints) {
		add(e.Endpoints[n].ModelDir, "endpoints", n, "model_dir")
	}
	for _, k := range keys(e.Stages) {
		if e.Stages[k].Kind != "pretrain" {
			continue
		}
		var c struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(e.Stages[k].Raw, &c) == nil {
			add(c.Text, "stages", k, "text")
		}
	}
	for _, n := range keys(e.Judges) {
		if cmd := e.Judges[n].Command; len(cmd) > 0 && strings.ContainsRune(cmd[0], '/') {
			add(cmd[0], "judges", n, "command", 0)
		}
	}
	for _, n := range keys(e.Metrics) {
		if cmd := e.Metrics[n].Command; len(cmd) > 0 && strings.ContainsRune(cmd[0], '/') {
			add(cmd[0], "metrics", n, "command", 0)
		}
	}
	var carried map[string]string
	if v := l.Value.LookupPath(cue.ParsePath("mascot.paths")); v.Exists() && v.Decode(&carried) == nil {
		for p, q := range carried {
			out[p] = q
		}
	}
	return out
}

// SortedPaths returns m's keys in order (for messages and files).
func SortedPaths(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// baseDir is the folder of the user's file on disk that writes the value
// at field (strings are field names, ints list indexes), or "" when the
// value comes from the command line, an embedded experiment or the schema.
func (l *Loaded) baseDir(field ...any) string {
	sel := make([]cue.Selector, len(field))
	for i, f := range field {
		switch f := f.(type) {
		case int:
			sel[i] = cue.Index(f)
		case string:
			sel[i] = cue.Str(f)
		}
	}
	pos := l.Value.LookupPath(cue.MakePath(sel...)).Pos()
	name := pos.Filename()
	if !pos.IsValid() || !filepath.IsAbs(name) {
		return ""
	}
	for pre := range l.rw.prefixes {
		if strings.HasPrefix(name, pre) {
			return "" // an embedded experiment, through the overlay
		}
	}
	if st, err := os.Stat(name); err != nil || st.IsDir() {
		return ""
	}
	return filepath.Dir(name)
}
