package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// resolveAll resolves run references to ids.
func resolveAll(c *cobra.Command, s *results.Store, refs []string) ([]string, error) {
	var ids []string
	for _, a := range refs {
		r, err := s.ResolveRun(c.Context(), a)
		if err != nil {
			return nil, invalid("%v", err)
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}

func newCompare() *cobra.Command {
	var f storeFlags
	var format string
	c := &cobra.Command{
		Use:   "compare RUN_A RUN_B [RUN...]",
		Short: "Per-criterion deltas and paired per-sample differences between runs (each against the first)",
		Long: `compare pairs the evaluation episodes of runs (by system, conversation and sample) and
prints per-criterion paired differences with bootstrap CIs. With more than two runs, each
later run is compared with the first. mascot results diff says which config fields and
stages differ.`,
		Example: "  mascot results compare RUN_A RUN_B --format markdown\n  mascot results compare baseline RUN_B RUN_C",
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) < 2 {
				return invalid("compare takes at least two runs, got %d (see mascot results ls)", len(args))
			}
			if err := report.CheckFormat(format, true); err != nil && !f.jsonOut {
				return usageError{err}
			}
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			ids, err := resolveAll(c, s, args)
			if err != nil {
				return err
			}
			var cmps []*report.Comparison
			for _, id := range ids[1:] {
				cmp, err := report.Compare(c.Context(), s, ids[0], id, report.Options{})
				if err != nil {
					return err
				}
				cmps = append(cmps, cmp)
			}
			if f.jsonOut {
				format = "json"
			}
			if format == "json" && len(cmps) > 1 {
				return printJSON(c.OutOrStdout(), cmps)
			}
			for i, cmp := range cmps {
				if i > 0 {
					fmt.Fprintln(c.OutOrStdout())
				}
				if err := report.RenderComparison(c.OutOrStdout(), cmp, format); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f.add(c)
	c.Flags().StringVar(&format, "format", "terminal", "terminal | markdown | csv | json")
	return c
}

func newDiff() *cobra.Command {
	var f storeFlags
	c := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "The resolved-config fields that differ between two runs, then the stages that change invalidated",
		Example: `  mascot results diff RUN_A RUN_B
  mascot results diff RUN_A RUN_B --json`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			ids, err := resolveAll(c, s, args)
			if err != nil {
				return err
			}
			d, err := s.DiffRuns(c.Context(), ids[0], ids[1])
			if err != nil {
				return err
			}
			if f.jsonOut {
				return printJSON(c.OutOrStdout(), d)
			}
			return printDiff(c.OutOrStdout(), d)
		},
	}
	f.add(c)
	return c
}

// printDiff renders a run diff: fields, then stages.
func printDiff(w io.Writer, d *results.RunDiff) error {
	fmt.Fprintf(w, "config of %s → %s: %d fields differ\n", d.A, d.B, len(d.Fields))
	show := func(b []byte) string {
		if b == nil {
			return "(absent)"
		}
		return shortValue(string(b), 80)
	}
	for _, f := range d.Fields {
		fmt.Fprintf(w, "  %s: %s → %s\n", f.Path, show(f.A), show(f.B))
	}
	if len(d.Stages) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nstages:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, st := range d.Stages {
		status := st.Status
		if st.Reason != "" {
			status += " (" + st.Reason + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", st.Key, st.Kind, status)
	}
	return tw.Flush()
}

func newTag() *cobra.Command {
	var f storeFlags
	var remove bool
	c := &cobra.Command{
		Use:   "tag RUN [TAG...]",
		Short: "Tag a run (results ls --tag lists the runs of a tag); without tags, list the run's",
		Example: `  mascot results tag latest baseline paper-table-2
  mascot results tag latest --rm paper-table-2
  mascot results ls --tag baseline`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalid("tag takes a RUN and the tags to add (see mascot results tag --help)")
			}
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			ids, err := resolveAll(c, s, args[:1])
			if err != nil {
				return err
			}
			switch {
			case remove:
				err = s.UntagRun(c.Context(), ids[0], args[1:]...)
			case len(args) > 1:
				err = s.TagRun(c.Context(), ids[0], args[1:]...)
			}
			if errors.Is(err, results.ErrBadTag) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			tags, err := s.RunTags(c.Context(), ids[0])
			if err != nil {
				return err
			}
			if f.jsonOut {
				return printJSON(c.OutOrStdout(), map[string]any{"run": ids[0], "tags": tags})
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: %s\n", ids[0], strings.Join(append([]string{}, tags...), ", "))
			return nil
		},
	}
	f.add(c)
	c.Flags().BoolVar(&remove, "rm", false, "remove the tags instead of adding them")
	return c
}

func newRemove() *cobra.Command {
	var f storeFlags
	var yes bool
	c := &cobra.Command{
		Use:   "rm RUN...",
		Short: "Remove runs with the rows and files no other run uses (asks first; --yes does not)",
		Long: `rm removes runs from the database: the runs (a sweep parent with its children), their
stages and counters, the units no other run links with every row they hold (episodes,
judgments, metrics, pairs, training steps, cached LLM responses), and the run directories
and artifact files only those units hold. A unit another run reuses stays, and so do its
files. It says what it will remove and asks; --yes removes without asking.`,
		Example: `  mascot results rm 20261202-171500-ab12
  mascot results ls --tag scratch --json | jq -r '.[].id' | xargs mascot results rm --yes`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalid("rm takes the runs to remove (see mascot results ls)")
			}
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			ids, err := resolveAll(c, s, args)
			if err != nil {
				return err
			}
			plan, err := s.RemoveRuns(c.Context(), ids, true)
			if err != nil {
				return err
			}
			w := c.OutOrStdout()
			printRemoval(w, plan)
			if !yes {
				fmt.Fprint(w, "remove? [y/N] ")
				line, _ := bufio.NewReader(c.InOrStdin()).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return errors.New("nothing removed (answer y, or pass --yes)")
				}
			}
			done, err := s.RemoveRuns(c.Context(), ids, false)
			if err != nil {
				return err
			}
			if err := results.RemoveFiles(done); err != nil {
				return fmt.Errorf("the rows are removed, but not every file: %w", err)
			}
			if f.jsonOut {
				return printJSON(w, done)
			}
			fmt.Fprintf(w, "removed %d runs, %d units and %d files\n", len(done.Runs), done.Units, len(done.Files))
			return nil
		},
	}
	f.add(c)
	c.Flags().BoolVarP(&yes, "yes", "y", false, "remove without asking")
	return c
}

// printRemoval says what a removal deletes.
func printRemoval(w io.Writer, rm *results.Removal) {
	fmt.Fprintf(w, "runs: %s\n", strings.Join(rm.Runs, ", "))
	fmt.Fprintf(w, "units only these runs use: %d (kept, as other runs use them: %d)\n", rm.Units, rm.Kept)
	var tables []string
	for t, n := range rm.Rows {
		if n > 0 && t != "runs" {
			tables = append(tables, fmt.Sprintf("%s %d", t, n))
		}
	}
	sort.Strings(tables)
	if len(tables) > 0 {
		fmt.Fprintf(w, "rows: %s\n", strings.Join(tables, ", "))
	}
	for _, p := range rm.Files {
		fmt.Fprintf(w, "file: %s\n", p)
	}
}

// printHeldout prints, under a heading, the held-out evaluation of each
// training stage that recorded one, with the field names --json uses.
func printHeldout(w io.Writer, stages []results.Stage) {
	first := true
	for _, st := range stages {
		h := st.Heldout
		if h == nil {
			continue
		}
		if first {
			fmt.Fprintln(w, "held-out evaluation:")
			first = false
		}
		switch {
		case h.AccuracyBefore != nil: // a DPO policy: before and after
			fmt.Fprintf(w, "  %-20s heldout.accuracy_before %s  heldout.accuracy %s  heldout.loss_before %s  heldout.loss %s  (%d pairs)\n",
				st.Key, fnum(h.AccuracyBefore), fnum(h.Accuracy), fnum(h.LossBefore), fnum(h.Loss), h.Pairs)
		case h.Accuracy != nil:
			fmt.Fprintf(w, "  %-20s heldout.accuracy %.4f  heldout.loss %s  (%d pairs)\n", st.Key, *h.Accuracy, fnum(h.Loss), h.Pairs)
		case h.LossBefore != nil || h.Loss != nil: // a language model (pretrain, train-sft)
			fmt.Fprintf(w, "  %-20s heldout.loss_before %s  heldout.loss %s  heldout.perplexity_before %s  heldout.perplexity %s  (%d examples, %d tokens)\n",
				st.Key, fnum(h.LossBefore), fnum(h.Loss), fnum(h.PerplexityBefore), fnum(h.Perplexity), h.Examples, h.Tokens)
		}
		if len(h.Epochs) > 0 {
			parts := make([]string, len(h.Epochs))
			for i, e := range h.Epochs {
				parts[i] = fmt.Sprintf("%.3g: %.3f/%.4f", e.Epoch, e.Accuracy, e.Loss)
			}
			fmt.Fprintf(w, "  %-20s per epoch (accuracy/loss): %s\n", "", strings.Join(parts, "  "))
		}
		if h.RewardBefore != nil || h.RewardAfter != nil {
			fmt.Fprintf(w, "  %-20s heldout.reward_before %s  heldout.reward_after %s", st.Key, fnum(h.RewardBefore), fnum(h.RewardAfter))
			if len(h.RewardDeltaCI) == 2 {
				fmt.Fprintf(w, "  heldout.reward_delta_ci [%+.4f, %+.4f]", h.RewardDeltaCI[0], h.RewardDeltaCI[1])
			}
			fmt.Fprintf(w, "  (%d prompts)\n", h.Prompts)
		}
	}
}

// fnum formats an optional value ("-" when absent).
func fnum(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *p)
}

// shortValue cuts s to at most max runes, ending in "..." when cut, so a
// long config value keeps one line and never splits a UTF-8 character.
func shortValue(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-3]) + "..."
}
