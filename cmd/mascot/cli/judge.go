package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// judgeFlags are the flags of judge.
type judgeFlags struct {
	runRefFlags
	judges []string
	stage  string
	level  string
	as     string
}

func newJudge() *cobra.Command {
	var f judgeFlags
	c := &cobra.Command{
		Use:   "judge RUN|SPEC",
		Short: "Judge the conversations stored in a finished run (by default those of mascot chat)",
		Long: `judge reopens a finished run and runs a judge stage over episodes it stored that its config
did not judge: by default the conversations of "mascot chat" (stage "chat"), or any episodes stage
of the run (--stage). It is the judge stage of a spec, run inside the old run: the run's judges and
endpoints, units cached by fingerprint (a second call judges only new conversations), judgments
stored under stage judge-<stage> (--as), counters added to the run. Your turns are context, never
judged; with --level collective each conversation is judged as a whole.`,
		Example: `  mascot chat latest            # talk, then
  mascot judge latest           # every judge of the run, on the stored conversations
  mascot judge latest --judge rubric --level collective
  mascot report latest --stages judge-chat`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			store, err := f.openStore(c.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			return f.run(c.Context(), c, store, args[0])
		},
	}
	f.runRefFlags.add(c)
	c.Flags().StringArrayVar(&f.judges, "judge", nil, "judge of the run's config to use (repeatable; default: all of them)")
	c.Flags().StringVar(&f.stage, "stage", results.ChatStage, "stage whose episodes to judge")
	c.Flags().StringVar(&f.level, "level", "agent", "agent (each agent turn) or collective (each conversation)")
	c.Flags().StringVar(&f.as, "as", "", "stage key for the judgments (default judge-<stage>)")
	return c
}

func (f *judgeFlags) run(ctx context.Context, c *cobra.Command, store *results.Store, ref string) error {
	run, err := f.resolve(ctx, store, ref)
	if err != nil {
		return err
	}
	opts, err := f.runOptions(c, store, run)
	if err != nil {
		return err
	}
	key, synthetic, err := f.addStages(opts.Loaded.Experiment)
	if err != nil {
		return err
	}
	sess, err := runner.OpenSession(ctx, opts, run.ID)
	if err != nil {
		return fmt.Errorf("opening run %s: %w", run.ID, err)
	}
	defer func() {
		if cerr := sess.Close(); cerr != nil {
			fmt.Fprintln(c.ErrOrStderr(), "mascot judge: closing endpoints:", cerr)
		}
	}()
	if synthetic {
		if _, err := sess.PublishStored(ctx, f.stage); err != nil {
			if errors.Is(err, runner.ErrNothingStored) {
				return invalid("run %s has no conversations under stage %q (talk to it with mascot chat first)", run.ID, f.stage)
			}
			return err
		}
	}
	sum, err := sess.RunStage(ctx, key, c.ErrOrStderr())
	if sum != nil {
		fmt.Fprintf(c.OutOrStdout(), "run %s: stage %s judged %d unit(s) of stage %s (%d ran, %d cached, %d failed)\n",
			run.ID, key, sum.Units, f.stage, sum.Ran, sum.Cached, sum.Failed)
	}
	if err != nil {
		if errors.Is(err, runner.ErrStageFailed) {
			return err
		}
		return fmt.Errorf("judging run %s: %w", run.ID, err)
	}
	fmt.Fprintf(c.OutOrStdout(), "see: mascot report %s --stages %s\n", run.ID, key)
	return nil
}

// addStages adds to the run's config the judge stage (and, for stored
// conversations, an episodes stage standing for them) and returns the
// judge stage's key and whether the judged stage was added.
func (f *judgeFlags) addStages(exp *schema.Experiment) (string, bool, error) {
	if f.level != "agent" && f.level != "collective" {
		return "", false, invalid("--level %q: want agent or collective", f.level)
	}
	judges := f.judges
	if len(judges) == 0 {
		judges = slices.Sorted(maps.Keys(exp.Judges))
	}
	if len(judges) == 0 {
		return "", false, invalid("the run's config declares no judges")
	}
	for _, j := range judges {
		if _, ok := exp.Judges[j]; !ok {
			return "", false, invalid("unknown judge %q (the run's config has: %s)", j, strings.Join(slices.Sorted(maps.Keys(exp.Judges)), ", "))
		}
	}
	key := f.as
	if key == "" {
		key = "judge-" + f.stage
	}
	if err := schema.CheckIdentifier(key); err != nil {
		return "", false, invalid("--as %q: %v", key, err)
	}
	if _, ok := exp.Stages[key]; ok {
		return "", false, invalid("the run's config already has a stage %q (pass --as)", key)
	}
	synthetic := false
	if up, ok := exp.Stages[f.stage]; ok {
		if up.Kind != "episodes" {
			return "", false, invalid("--stage %s is a %s stage; judge reads episodes", f.stage, up.Kind)
		}
	} else {
		if f.stage != results.ChatStage {
			return "", false, invalid("the run's config has no stage %q", f.stage)
		}
		base, ok := chatBase(exp)
		if !ok {
			return "", false, invalid("the run's config has no episodes stage (whose roster its conversations use)")
		}
		exp.Stages[f.stage] = schema.Stage{Key: f.stage, Kind: "episodes", Raw: base.Raw}
		synthetic = true
	}
	raw, err := json.Marshal(map[string]any{"kind": "judge", "items": f.stage, "level": f.level, "judges": judges, "compare": []string{}})
	if err != nil {
		return "", false, fmt.Errorf("encoding the judge stage: %w", err)
	}
	exp.Stages[key] = schema.Stage{Key: key, Kind: "judge", Raw: raw}
	return key, synthetic, nil
}

// chatBase is the episodes stage whose config (roster, persona cards) the
// stored conversations stand on: the first evaluation stage, else the
// first episodes stage.
func chatBase(exp *schema.Experiment) (schema.Stage, bool) {
	var keys []string
	for k, st := range exp.Stages {
		if st.Kind == "episodes" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return schema.Stage{}, false
	}
	slices.Sort(keys)
	for _, k := range keys {
		var m struct {
			Mode string `json:"mode"`
		}
		if err := exp.Stages[k].Decode(&m); err == nil && m.Mode == "eval" {
			return exp.Stages[k], true
		}
	}
	return exp.Stages[keys[0]], true
}
