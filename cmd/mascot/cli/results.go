package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/results/transfer"
)

// storeFlags select the results database.
type storeFlags struct {
	db      string
	jsonOut bool
}

func (f *storeFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.db, "db", results.DefaultPath, "results database (SQLite)")
	c.Flags().BoolVar(&f.jsonOut, "json", false, "print JSON")
}

func (f *storeFlags) open(c *cobra.Command) (*results.Store, error) {
	if !fileExists(f.db) {
		return nil, invalid("no results database at %s (run an experiment first, or pass --db)", f.db)
	}
	s, err := results.OpenContext(c.Context(), f.db)
	if errors.Is(err, results.ErrNotADatabase) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, fmt.Errorf("opening results database: %w", err)
	}
	return s, nil
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

func newResults() *cobra.Command {
	c := &cobra.Command{Use: "results", Short: "List, show, compare, diff, tag and remove stored runs"}
	var f storeFlags
	var filter results.RunFilter
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List runs with status, counters and duration",
		Example: `  mascot results ls
  mascot results ls --status failed --sort duration --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			runs, err := s.ListRuns(c.Context(), filter)
			if err != nil {
				return err
			}
			if f.jsonOut {
				return printJSON(c.OutOrStdout(), runs)
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tNAME\tSTATUS\tSTARTED\tDURATION\tUNITS DONE\tCACHED\tFAILED")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", r.ID, shown(r.Name), r.Status,
					r.StartedAt.Local().Format("2006-01-02 15:04"), (time.Duration(r.DurationMS) * time.Millisecond).Round(time.Second),
					r.UnitsDone, r.UnitsCached, r.UnitsFailed)
			}
			return tw.Flush()
		},
	}
	f.add(ls)
	ls.Flags().StringVar(&filter.Status, "status", "", "only runs with this status")
	ls.Flags().StringVar(&filter.Name, "name", "", "only runs whose name contains this")
	ls.Flags().StringVar(&filter.Sort, "sort", "started", "started | name | status | duration | config")
	ls.Flags().BoolVar(&filter.TopLevel, "top", false, "hide sweep children")
	ls.Flags().StringVar(&filter.Tag, "tag", "", "only runs with this tag (see results tag)")

	var sf storeFlags
	show := &cobra.Command{
		Use:     "show RUN",
		Short:   "Show a run: stages with unit counts, counters, config",
		Example: "  mascot results show latest\n  mascot results show 20261202-171500-ab12 --json",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := sf.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			run, err := s.ResolveRun(c.Context(), args[0])
			if err != nil {
				return invalid("%v", err)
			}
			d, err := s.GetRunDetail(c.Context(), run.ID)
			if err != nil {
				return err
			}
			if sf.jsonOut {
				return printJSON(c.OutOrStdout(), d)
			}
			w := c.OutOrStdout()
			fmt.Fprintf(w, "run %s  %s  (%s)  %s  %s\n", d.Run.ID, shown(d.Run.Name), shown(d.Run.ConfigName), d.Run.Status,
				d.Run.Duration().Round(time.Second))
			if code := codeLine(d.Run.Code); code != "" {
				fmt.Fprintf(w, "code: %s\n", code)
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STAGE\tKIND\tSTATUS\tTOTAL\tDONE\tCACHED\tFAILED")
			for _, st := range d.Stages {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", st.Key, st.Kind, st.Status, st.UnitsTotal,
					st.UnitsDone, st.UnitsCached, st.UnitsFailed)
			}
			tw.Flush()
			for _, st := range d.Stages {
				if st.Error != "" && (st.Status == "failed" || st.Status == "skipped") {
					fmt.Fprintf(w, "  %s %s: %s\n", st.Key, st.Status, firstLine(st.Error))
				}
			}
			printHeldout(w, d.Stages)
			if tags, err := s.RunTags(c.Context(), d.Run.ID); err != nil {
				return err
			} else if len(tags) > 0 {
				fmt.Fprintf(w, "tags: %s\n", strings.Join(tags, ", "))
			}
			if len(d.Counters) > 0 {
				fmt.Fprintln(w, "counters:")
				keys := make([]string, 0, len(d.Counters))
				for k := range d.Counters {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(w, "  %-32s %d\n", k, d.Counters[k])
				}
			}
			return nil
		},
	}
	sf.add(show)

	c.AddCommand(ls, show, newCompare(), newDiff(), newTag(), newRemove())
	return c
}

func newReport() *cobra.Command {
	var f storeFlags
	var format string
	var stages []string
	var opts report.Options
	var plotDir string
	c := &cobra.Command{
		Use:   "report RUN...",
		Short: "Paper-style tables: per system x split x criterion mean ± std with bootstrap CIs",
		Long: `Paper-style tables of one or more runs. A run's report covers its evaluation
episodes (every episode not generated to train from, and not a conversation of
mascot chat); --include-training adds the training-time episodes (modes
independent, branching) and the chat conversations as rows of their own,
labelled "(training: MODE)" and "(chat)". --stages restricts the report to what
the named stages recorded, training stages and mascot judge's included. The
report of a sweep (its parent run) ends with the sweep's table as the sweep
printed it: a row per variant, the failed ones with why, and a racing search's
rounds with the variants it stopped, after which round and on what evidence
(text, markdown and html).`,
		Example: `  mascot report latest
  mascot report RUN_A RUN_B --format markdown --split-by valence
  mascot report latest --stages judge_eval_agent,metrics_eval
  mascot report latest --include-training
  mascot report latest --format html > report.html
  mascot report RUN_A RUN_B --format latex --plot plots/`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalid("report needs at least one RUN (see mascot results ls)")
			}
			if err := report.CheckFormat(format, false); err != nil && !f.jsonOut {
				return usageError{err}
			}
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			var ids []string
			for _, a := range args {
				r, err := s.ResolveRun(c.Context(), a)
				if err != nil {
					return invalid("%v", err)
				}
				ids = append(ids, r.ID)
			}
			if len(stages) > 0 {
				opts.Units = []string{}
				for _, id := range ids {
					units, err := s.StageUnits(c.Context(), id, stages)
					if err != nil {
						return invalid("%v", err)
					}
					opts.Units = append(opts.Units, units...)
				}
			}
			rep, err := report.Build(c.Context(), s, ids, opts)
			if err != nil {
				return err
			}
			if f.jsonOut {
				format = "json"
			}
			notes, err := sweepNotes(c.Context(), s, ids)
			if err != nil {
				return err
			}
			if plotDir != "" || format == report.FormatHTML {
				return reportWithPlots(c, s, rep, ids, format, plotDir, notes)
			}
			if err := report.Render(c.OutOrStdout(), rep, format); err != nil {
				return err
			}
			return printNotes(c.OutOrStdout(), format, notes)
		},
	}
	f.add(c)
	c.Flags().StringVar(&format, "format", "terminal", "terminal | markdown | csv | json | html (one self-contained page with the plots) | latex (booktabs tables)")
	c.Flags().StringVar(&plotDir, "plot", "", "also write the plots as SVG files into this directory: criteria bars, forest plots against the first run, a sweep's axes, training curves")
	c.Flags().StringVar(&opts.SplitBy, "split-by", "auto", "auto | valence | domain | none")
	c.Flags().IntVar(&opts.Resamples, "resamples", 1000, "bootstrap resamples (negative: no CIs)")
	c.Flags().Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	c.Flags().BoolVar(&opts.IncludeTraining, "include-training", false,
		"also report the training-time episodes (independent, branching), in rows labelled with their mode")
	c.Flags().StringSliceVar(&stages, "stages", nil,
		"only the results of these stage keys (e.g. judge_eval_agent,metrics_eval); N counts the episodes they scored")
	return c
}

func newExport() *cobra.Command {
	var f storeFlags
	var format, out, capsuleFile, artifacts string
	var noData bool
	var opts transfer.ExportOptions
	c := &cobra.Command{
		Use:   "export RUN",
		Short: "Export a run's conversations as MASCOT JSONL, or the whole run as a capsule that replays offline",
		Long: `Export a run's evaluation conversations as MASCOT JSONL. Every record carries
"stage" (the stage key that generated it) and "mode" (eval, independent,
branching, imported or chat); --include-training also writes the training-time
episodes (modes independent and branching) and the conversations of mascot chat.
mascot import keeps both keys.

--capsule FILE packs the whole run instead: its resolved config, the code
version, data files and their hashes, seeds, every LLM reply it used, the
digests of its stages, its trained artefacts' hashes (and the artefacts, up to
256 MiB with --artifacts auto) and its report; 'mascot replay FILE' re-executes
it offline, anywhere.`,
		Example: `  mascot export latest --format mascot-jsonl --out exported/
  mascot export latest --include-training
  mascot export latest --capsule tour.capsule`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "mascot-jsonl" {
				return invalid("unknown export format %q (want mascot-jsonl)", format)
			}
			s, err := f.open(c)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := s.ResolveRun(c.Context(), args[0])
			if err != nil {
				return invalid("%v", err)
			}
			if capsuleFile != "" {
				return exportCapsule(c, s, r, capsuleFile, artifacts, noData, f.jsonOut)
			}
			if out == "" {
				out = "export-" + r.ID
			}
			res, err := transfer.Export(c.Context(), s, r.ID, out, opts)
			if errors.Is(err, transfer.ErrWouldOverwrite) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if f.jsonOut {
				return printJSON(c.OutOrStdout(), res)
			}
			if res.Training > 0 {
				fmt.Fprintf(c.OutOrStdout(), "exported %d episodes (%d of them training-time) to %s\n", res.Episodes,
					res.Training, res.Path)
				return nil
			}
			fmt.Fprintf(c.OutOrStdout(), "exported %d evaluation episodes to %s\n", res.Episodes, res.Path)
			if res.LeftOut > 0 {
				fmt.Fprintf(c.OutOrStdout(), "left out %d training-time episodes (--include-training exports them)\n",
					res.LeftOut)
			}
			return nil
		},
	}
	f.add(c)
	c.Flags().StringVar(&format, "format", "mascot-jsonl", "export format")
	c.Flags().StringVar(&out, "out", "", "output directory (default export-RUN)")
	c.Flags().BoolVar(&opts.IncludeTraining, "include-training", false,
		"also export the training-time episodes (modes independent, branching)")
	c.Flags().StringVar(&capsuleFile, "capsule", "", "pack the whole run into this capsule file (see mascot replay)")
	c.Flags().StringVar(&artifacts, "artifacts", "auto", "with --capsule: pack trained artefacts: auto (up to 256 MiB) | all | none")
	c.Flags().BoolVar(&noData, "no-data", false, "with --capsule: hash the data files without packing them")
	return c
}

// importFile imports file into the database at db: a database that does
// not exist yet is filled aside and appears whole once the import is done
// (transfer.ImportNew), an existing one takes the run in one transaction.
func importFile(ctx context.Context, db, file, name string) (transfer.ImportResult, error) {
	if db == "" {
		db = results.DefaultPath
	}
	if _, err := os.Lstat(db); errors.Is(err, os.ErrNotExist) {
		if err := checkDBDir(db); err != nil {
			return transfer.ImportResult{}, err
		}
		res, err := transfer.ImportNew(ctx, db, file, name)
		if !errors.Is(err, os.ErrExist) {
			return res, err
		}
		// Another process created the database meanwhile: import into it.
	}
	s, err := openDB(ctx, db)
	if err != nil {
		return transfer.ImportResult{}, err
	}
	defer s.Close()
	return transfer.Import(ctx, s, file, name)
}

func newImport() *cobra.Command {
	var f storeFlags
	var name string
	c := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Import MASCOT JSONL conversations (e.g. from the Python original) as a run",
		Example: `  mascot import outputs/mascot_ed.jsonl --name python-original
  mascot report latest`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !fileExists(args[0]) {
				return invalid("no file %s", args[0])
			}
			res, err := importFile(c.Context(), f.db, args[0], name)
			if errors.Is(err, transfer.ErrBadRecord) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if f.jsonOut {
				return printJSON(c.OutOrStdout(), res)
			}
			fmt.Fprintf(c.OutOrStdout(), "imported %d episodes as run %s\n", res.Episodes, res.RunID)
			return nil
		},
	}
	f.add(c)
	c.Flags().StringVar(&name, "name", "", "run name (default: the file name)")
	return c
}
