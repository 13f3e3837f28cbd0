package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"mascot.dev/mascot/schema"
)

// PlanStage is one stage of a plan.
type PlanStage struct {
	Key         string   `json:"key"`
	Kind        string   `json:"kind"`
	Inputs      []string `json:"inputs"`
	Fingerprint string   `json:"fingerprint"`
	// Units is -1 when it depends on results that do not exist yet.
	Units  int    `json:"units"`
	Done   int    `json:"done"`
	Note   string `json:"note,omitempty"`
	Device bool   `json:"device"`
	// Backend is the compute backend a training stage runs on (its
	// device field: "cpu" or "cuda"); empty for other stages.
	Backend string `json:"backend,omitempty"`
	// Summary is the kind's one-line description (Kind.Summary).
	Summary string `json:"summary,omitempty"`
	// Settings are the stage's settings the kind shows (Kind.Settings).
	Settings string `json:"settings,omitempty"`
}

// Plan lists the stages in execution order with unit counts: how many each
// will run and how many are already done in the store (and so cached).
func Plan(ctx context.Context, opts Options) ([]PlanStage, error) {
	opts.Progress = nil
	r, err := newRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	r.env = &Env{Store: opts.Store, Exp: opts.Loaded.Experiment, Log: r.opts.Log, Out: io.Discard, Files: r.files()}
	var out []PlanStage
	for _, key := range r.order {
		k := r.kinds[key]
		ps := PlanStage{Key: key, Kind: k.Name, Inputs: r.deps[key], Fingerprint: r.fps[key], Units: -1,
			Device: opts.Loaded.Experiment.Kinds.IsTraining(k.Name), Summary: k.Summary}
		ps.Units, ps.Done, ps.Note = r.countUnits(ctx, key)
		if k.Settings != nil {
			ps.Settings = k.Settings(r.opts.Loaded.Experiment.Stages[key])
		}
		if ps.Device {
			ps.Backend = stageDevice(r.opts.Loaded.Experiment.Stages[key])
		}
		if ps.Units < 0 || ps.Done < ps.Units {
			// A preflight problem the count already met (a dataset not
			// found) is said once, in full, not again cut to its first line.
			if n := r.preflightNote(key); n != "" && !strings.Contains(ps.Note, strings.TrimPrefix(n, preflightPrefix)) {
				ps.Note = strings.TrimPrefix(ps.Note+"; "+n, "; ")
			}
		}
		out = append(out, ps)
	}
	return out, nil
}

func (r *run) countUnits(ctx context.Context, key string) (int, int, string) {
	for _, d := range r.deps[key] {
		if _, err := r.env.Output(d); err != nil {
			return -1, 0, "after " + d
		}
	}
	st, err := r.kinds[key].New(r.env, r.opts.Loaded.Experiment.Stages[key])
	if err != nil {
		return -1, 0, err.Error()
	}
	units, err := st.Units(ctx)
	if err != nil {
		return -1, 0, err.Error()
	}
	units = r.opts.Slice.apply(key, units)
	fps := make([]string, len(units))
	for i, u := range units {
		fps[i], _ = UnitFingerprint(r.fps[key], u.Inputs)
	}
	done, err := r.opts.Store.DoneUnits(ctx, fps)
	if err != nil {
		return len(units), 0, err.Error()
	}
	n := 0
	for _, ok := range done {
		if ok {
			n++
		}
	}
	if n == len(units) {
		_ = r.publish(ctx, key, fps)
	}
	return len(units), n, ""
}

// PrintPlan renders a plan as a table.
func PrintPlan(w io.Writer, plan []PlanStage) {
	fmt.Fprintf(w, "%-24s %-20s %-6s %7s %7s %7s  %s\n", "STAGE", "KIND", "DEVICE", "UNITS", "DONE", "TO RUN", "INPUTS")
	for _, p := range plan {
		units, todo := "?", "?"
		if p.Units >= 0 {
			units, todo = fmt.Sprint(p.Units), fmt.Sprint(p.Units-p.Done)
		}
		in := strings.Join(p.Inputs, ", ")
		if in == "" {
			in = "-"
		}
		if p.Settings != "" {
			in += "  [" + p.Settings + "]"
		}
		if p.Note != "" {
			in += "  (" + noteLine(p.Note) + ")"
		}
		dev := p.Backend
		if dev == "" {
			dev = "-"
		}
		fmt.Fprintf(w, "%-24s %-20s %-6s %7s %7d %7s  %s\n", p.Key, p.Kind, dev, units, p.Done, todo, in)
	}
	printNoteDetails(w, plan)
	seen := map[string]bool{}
	var kinds []Kind
	for _, p := range plan {
		if !seen[p.Kind] {
			seen[p.Kind] = true
			kinds = append(kinds, Kind{KindSpec: schema.KindSpec{Name: p.Kind, Device: p.Device}, Summary: p.Summary})
		}
	}
	fmt.Fprintln(w)
	writeKinds(w, kinds)
}

// KindsHelp lists the registry's kinds with their summaries, for --help
// and docs.
func (r *Registry) KindsHelp() string {
	var b strings.Builder
	var kinds []Kind
	for _, n := range r.Names() {
		k, _ := r.Lookup(n)
		kinds = append(kinds, k)
	}
	writeKinds(&b, kinds)
	return b.String()
}

func writeKinds(w io.Writer, kinds []Kind) {
	for _, k := range kinds {
		device := ""
		if k.Device {
			device = " (device)"
		}
		fmt.Fprintf(w, "  %-20s %s%s\n", k.Name, k.Summary, device)
	}
}

// PlanGraph renders the stage graph as mermaid or DOT.
func PlanGraph(w io.Writer, plan []PlanStage, format string) error {
	switch format {
	case "mermaid":
		fmt.Fprintln(w, "graph TD")
		for _, p := range plan {
			fmt.Fprintf(w, "  %s[\"%s<br/>%s\"]\n", mermaidID(p.Key), p.Key, p.Kind)
			for _, in := range p.Inputs {
				fmt.Fprintf(w, "  %s --> %s\n", mermaidID(in), mermaidID(p.Key))
			}
		}
	case "dot":
		fmt.Fprintln(w, "digraph mascot {")
		for _, p := range plan {
			fmt.Fprintf(w, "  %q [label=\"%s\\n%s\"];\n", p.Key, p.Key, p.Kind)
			for _, in := range p.Inputs {
				fmt.Fprintf(w, "  %q -> %q;\n", in, p.Key)
			}
		}
		fmt.Fprintln(w, "}")
	default:
		return fmt.Errorf("unknown graph format %q (want mermaid or dot)", format)
	}
	return nil
}

func mermaidID(s string) string { return strings.NewReplacer("-", "_", ".", "_").Replace(s) }

// stageDevice is a training stage's device field ("cpu" when unset).
func stageDevice(st schema.Stage) string {
	var f struct {
		Device string `json:"device"`
	}
	if json.Unmarshal(st.Raw, &f) != nil || f.Device == "" {
		return "cpu"
	}
	return f.Device
}
