package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/internal/hugemem"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitInvalid = 2
)

// usageError marks errors in the user's input (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// invalid wraps err as bad input.
func invalid(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Main runs the CLI with os.Args and returns the exit code.
func Main() int {
	// Before any command grows the heap: its first pages then come from
	// the kernel two megabytes at a fault (internal/hugemem).
	hugemem.AdviseProcess()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// Run executes one command line; tests call it in process.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	return printError(err, stderr)
}

func printError(err error, w io.Writer) int {
	var serrs schema.Errors
	if errors.As(err, &serrs) {
		serrs.Print(w)
		return ExitInvalid
	}
	fmt.Fprintln(w, "mascot:", err)
	var u usageError
	var sel runner.SelectionError
	if errors.As(err, &u) || errors.As(err, &sel) || isUnknownCommand(err) {
		return ExitInvalid
	}
	return ExitFailure
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "mascot",
		Short: "Reproduce and extend MASCOT, the multi-agent companion system, from declarative CUE experiments",
		Long: `mascot validates, plans and runs MASCOT experiments written in CUE: datasets,
persona rosters, OpenAI-compatible endpoints, judges, rewards and training stages.

  mascot list                                   # paper configs and demos, by name
  mascot run demo                               # the whole pipeline offline
  mascot validate my.cue                        # positioned errors, exit 2
  mascot plan paper/qmsum -t vllm=http://gpu01:8008/v1 -t judge=http://gpu02:8008/v1
  mascot --version                              # the code version every run records`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version: the module version, VCS revision and dirty flag this
		// binary was built from (the code version runs record).
		Version: buildinfo.Read().String(),
	}
	root.SetVersionTemplate("mascot {{.Version}}\n")
	// Cobra adds the flag only when the command executes; added here, it is
	// in the CLI reference too.
	root.InitDefaultVersionFlag()
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	// Every command, listed here rather than registered from each file.
	root.AddCommand(
		newList(), newShow(), newValidate(), newPlan(), newSchema(),
		newRun(), newSweep(), newSync(), newStageExec(), newReplay(),
		newResults(), newReport(), newExport(), newImport(),
		newJudge(), newChat(), newServe(), newUI(), newDocs(), newPlugin(),
	)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command that only groups others
// (results, plugin, schema, ...) refuse an argument that names none of
// them, as the root does: cobra would print the group's help and exit 0.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Runnable() || !c.HasSubCommands() || !c.HasParent() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return invalid("unknown command %q for %q (see %s --help)", args[0], c.CommandPath(), c.CommandPath())
		}
		return c.Help()
	}
}

// isUnknownCommand reports cobra's error for a first argument that names
// no command of the root (it has no type to test for).
func isUnknownCommand(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}

// specFlags are the flags every command that loads a spec shares.
type specFlags struct {
	tags []string
	sets []string
	// open loads with required tags left open (show, validate, plan):
	// they read as @tag(NAME) and are listed, not refused.
	open bool
}

func (f *specFlags) add(c *cobra.Command) {
	c.Flags().StringArrayVarP(&f.tags, "tag", "t", nil, "inject a @tag value: -t vllm=http://HOST:PORT/v1 (repeatable)")
	c.Flags().StringArrayVar(&f.sets, "set", nil, "override a config path: --set stages.candidates.k=4 (repeatable)")
}

func (f *specFlags) load(arg string) (*schema.Loaded, error) {
	return schema.Load(arg, runner.Default.Kinds(), f.loadOptions())
}

func (f *specFlags) loadOptions() schema.Options {
	return schema.Options{Tags: f.tags, Sets: f.sets, OpenTags: f.open}
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return invalid("%s takes %d argument(s), got %d (see mascot %s --help)", c.Name(), n, len(args), c.Name())
		}
		return nil
	}
}
