package runner

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// SweepPlan is what a sweep will do: every variant's plan, the stages all
// variants share (they run once) and the units each variant adds.
type SweepPlan struct {
	Name     string        `json:"name"`
	Mode     string        `json:"mode"`
	Axes     []string      `json:"axes"`
	Variants []VariantPlan `json:"variants"`
	// Shared are the stages whose fingerprint every variant has.
	Shared []PlanStage `json:"shared"`
}

// VariantPlan is one variant's plan.
type VariantPlan struct {
	Label  string      `json:"label"`
	Stages []PlanStage `json:"stages"`
	// Own are the variant's stages that not every variant shares; SameAs
	// names, for each of them an earlier variant also has (same
	// fingerprint), that variant's number (1-based), else 0.
	Own    []string `json:"own"`
	SameAs []int    `json:"same_as"`
	// Adds is the units to run of the stages the variant is first to
	// have; Later lists those of them whose units are counted only once
	// their inputs exist.
	Adds  int      `json:"adds"`
	Later []string `json:"later,omitempty"`
}

// PlanSweep plans every variant of the sweep (or opts.Sweep) against the
// store, without running anything.
func PlanSweep(ctx context.Context, opts SweepOptions) (*SweepPlan, error) {
	sw, err := prepareSweep(opts)
	if err != nil {
		return nil, err
	}
	sp := &SweepPlan{Name: sw.base.Experiment.Name, Mode: sw.def.Mode}
	for a := range sw.def.Axes {
		sp.Axes = append(sp.Axes, a)
	}
	sort.Strings(sp.Axes)
	plans := make([][]PlanStage, len(sw.variants))
	count := map[string]int{} // fingerprint -> variants that have it
	for i := range sw.variants {
		ro := opts.Run
		ro.Loaded = sw.loaded[i]
		if plans[i], err = Plan(ctx, ro); err != nil {
			return nil, fmt.Errorf("planning variant %s: %w", sw.variants[i].Label(), err)
		}
		for _, p := range plans[i] {
			count[p.Fingerprint]++
		}
	}
	n := len(sw.variants)
	for _, p := range plans[0] {
		if count[p.Fingerprint] == n {
			sp.Shared = append(sp.Shared, p)
		}
	}
	first := map[string]int{} // fingerprint -> first variant (1-based)
	for i, v := range sw.variants {
		vp := VariantPlan{Label: v.Label(), Stages: plans[i]}
		for _, p := range plans[i] {
			if count[p.Fingerprint] == n {
				continue
			}
			vp.Own = append(vp.Own, p.Key)
			vp.SameAs = append(vp.SameAs, first[p.Fingerprint])
			if first[p.Fingerprint] != 0 {
				continue
			}
			first[p.Fingerprint] = i + 1
			if p.Units < 0 {
				vp.Later = append(vp.Later, p.Key)
			} else {
				vp.Adds += p.Units - p.Done
			}
		}
		sp.Variants = append(sp.Variants, vp)
	}
	return sp, nil
}

// PrintSweepPlan renders a sweep plan: the shared stages as a plan table,
// then one line per variant with its own stages and the units it adds.
func PrintSweepPlan(w io.Writer, sp *SweepPlan) {
	fmt.Fprintf(w, "sweep of %s: %d variants (%s over %s)\n\n", sp.Name, len(sp.Variants), sp.Mode, strings.Join(sp.Axes, ", "))
	if len(sp.Shared) > 0 {
		fmt.Fprintln(w, "shared by every variant (run once):")
		PrintPlan(w, sp.Shared)
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "no stage is shared by every variant")
		fmt.Fprintln(w)
	}
	labels := make([]string, len(sp.Variants))
	for i, v := range sp.Variants {
		labels[i] = v.Label
	}
	lw := labelWidth(labels)
	fmt.Fprintf(w, "%-3s %-*s  %-12s  %s\n", "#", lw, "VARIANT", "UNITS TO RUN", "ITS OWN STAGES (units to run)")
	notes := map[string]bool{}
	for i, v := range sp.Variants {
		byKey := map[string]PlanStage{}
		for _, p := range v.Stages {
			byKey[p.Key] = p
		}
		var own []string
		for j, k := range v.Own {
			p := byKey[k]
			switch {
			case v.SameAs[j] != 0:
				k += fmt.Sprintf(" (as #%d)", v.SameAs[j])
			case p.Units < 0:
				k += " (?)"
				if p.Note != "" {
					notes[p.Note] = true
				}
			default:
				k += fmt.Sprintf(" (%d)", p.Units-p.Done)
			}
			own = append(own, k)
		}
		adds := fmt.Sprint(v.Adds)
		if len(v.Later) > 0 {
			adds += " + ?"
		}
		fmt.Fprintf(w, "%-3d %-*s  %-12s  %s\n", i+1, lw, v.Label, adds, strings.Join(own, ", "))
	}
	if len(notes) > 0 {
		var ns []string
		for n := range notes {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		fmt.Fprintf(w, "\n?: counted once the stage's inputs have run (%s)\n", strings.Join(ns, "; "))
	}
}
