package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/capsule"
)

// exportCapsule writes run's capsule (`mascot export RUN --capsule FILE`).
func exportCapsule(c *cobra.Command, s *results.Store, run results.Run, file, artifacts string, noData, asJSON bool) error {
	if artifacts != capsule.ArtifactsAuto && artifacts != capsule.ArtifactsAll && artifacts != capsule.ArtifactsNone {
		return invalid("--artifacts %q: want auto, all or none", artifacts)
	}
	m, err := capsule.Export(c.Context(), s, run.ID, file, capsule.ExportOptions{Artifacts: artifacts, NoData: noData})
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(c.OutOrStdout(), m)
	}
	st, _ := os.Stat(file)
	var size int64
	if st != nil {
		size = st.Size()
	}
	packed := 0
	for _, a := range m.Artifacts {
		if a.Member != "" {
			packed++
		}
	}
	fmt.Fprintf(c.OutOrStdout(), "packed run %s into %s (%d bytes): %d LLM replies, %d data files, %d stages, %d of %d artifacts\n",
		run.ID, file, size, m.Replies, len(m.Data), len(m.Stages), packed, len(m.Artifacts))
	fmt.Fprintf(c.OutOrStdout(), "replay it anywhere, offline: mascot replay %s\n", file)
	return nil
}

const replayDoc = `Replay re-executes a run packed by 'mascot export RUN --capsule FILE', offline:
every LLM request is answered from the capsule (a request it does not hold is
an error that names it and its stage; nothing is sent anywhere), the built-in
engine is not started, data is read from the capsule, and training stages
train again. The run is recreated under its own id in --db (which must not
hold it yet), each stage is compared with the capsule's digest (units,
result rows, artefact hashes), and the report is rebuilt and compared byte
for byte with the one packed at export. Replay says which stage would differ,
first to last, and exits 1 when anything does.`

func newReplay() *cobra.Command {
	var db, runsDir string
	var asJSON bool
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Re-execute a run from its capsule, offline, and say which stage would differ",
		Long:  replayDoc,
		Example: `  mascot export latest --capsule tour.capsule
  mkdir elsewhere && cd elsewhere && mascot replay ../tour.capsule
  mascot report latest --format json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !fileExists(args[0]) {
				return invalid("no capsule %s", args[0])
			}
			store, err := openDB(c.Context(), db)
			if err != nil {
				return err
			}
			defer store.Close()
			logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			res, err := capsule.Replay(c.Context(), args[0], capsule.ReplayOptions{Store: store, RunsDir: runsDir,
				Services: services(false), Progress: c.ErrOrStderr(), Log: logger})
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(c.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				printReplay(c, res)
			}
			if !res.Identical {
				return errDiffers
			}
			return nil
		},
	}
	c.Flags().StringVar(&db, "db", results.DefaultPath, "results database to recreate the run in (must not hold it)")
	c.Flags().StringVar(&runsDir, "runs-dir", "runs", "directory for the replayed run's files")
	c.Flags().BoolVar(&asJSON, "json", false, "print the outcome as JSON")
	return c
}

// errDiffers ends a replay that found differences (exit 1; they are printed).
var errDiffers = fmt.Errorf("the replay differs from the packed run")

func printReplay(c *cobra.Command, r *capsule.Result) {
	w := c.OutOrStdout()
	fmt.Fprintf(w, "replayed run %s offline: %d LLM replies from the capsule, %d requests missing\n", r.RunID, r.Replies,
		len(r.Missing))
	if code, now := r.Code.String(), r.Replayer.String(); r.Code.Version != "" && code != now {
		fmt.Fprintf(w, "the run was made by mascot %s; replayed by mascot %s\n", code, now)
	}
	for _, d := range r.Data {
		fmt.Fprintf(w, "data: %s\n", d)
	}
	for i, d := range r.Differences {
		lead := "stage"
		if i == 0 {
			lead = "first differing stage"
		}
		fmt.Fprintf(w, "%s %s: %s", lead, d.Stage, d.Why)
		if d.Substituted {
			fmt.Fprint(w, " (the capsule's artefact was used downstream)")
		}
		fmt.Fprintln(w)
	}
	for i, m := range r.Missing {
		if i == 5 {
			fmt.Fprintf(w, "... and %d more missing requests (--json lists them)\n", len(r.Missing)-5)
			break
		}
		fmt.Fprintf(w, "missing: stage %s, role %s, request %s\n", m.Stage, m.Role, m.Key)
	}
	if r.ReportIdentical {
		fmt.Fprintln(w, "report --format json: byte-identical to the packed run's")
	} else {
		fmt.Fprintln(w, "report --format json: differs from the packed run's")
	}
	if r.Identical {
		fmt.Fprintln(w, "identical: every stage matches the capsule")
	}
}
