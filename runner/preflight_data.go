package runner

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"mascot.dev/mascot/experiments"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/schema"
)

// stageDatasets lists the datasets stage st reads (its dataset fields as
// its kind declares them), and the datasets those exclude.
func stageDatasets(exp *schema.Experiment, st schema.Stage) []string {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(st.Raw, &fields)
	var out []string
	seen := map[string]bool{}
	var add func(string)
	add = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if _, ok := exp.Datasets[name]; !ok {
			return // validation reports an unknown name
		}
		out = append(out, name)
		for _, x := range exp.Datasets[name].Exclude {
			add(x)
		}
	}
	for _, ref := range exp.Kinds.StageRefs(st.Kind) {
		if ref.Target != "datasets" {
			continue
		}
		var names []string
		if raw := fields[ref.Field]; len(raw) > 0 {
			if ref.List {
				_ = json.Unmarshal(raw, &names)
			} else {
				var s string
				if json.Unmarshal(raw, &s) == nil && s != "" {
					names = []string{s}
				}
			}
		}
		for _, n := range names {
			add(n)
		}
	}
	return out
}

// checkDataset reports whether dataset name can be found (datasets.Locate:
// a path, the Hugging Face cache or $MASCOT_DATASETS) without loading it.
func checkDataset(env *Env, name string) error {
	d := env.Exp.Datasets[name]
	if rest, ok := strings.CutPrefix(d.Path, "embed:"); ok {
		if _, err := fs.Stat(experiments.Files, rest); err != nil {
			return fmt.Errorf("dataset %s: %s is not embedded in this binary", name, d.Path)
		}
		return nil
	}
	spec := datasets.Spec{Name: d.Name, Path: env.LocalPath(d.Path), HF: d.HFID, Split: d.Split}
	if _, err := datasets.Locate(spec); err != nil {
		return fmt.Errorf("dataset %s: %w", name, err)
	}
	return nil
}
