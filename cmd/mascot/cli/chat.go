package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/chat"
)

// chatFlags are the flags of chat (and of ui --chat).
type chatFlags struct {
	runRefFlags
	system, roster string
	stage          string
	rounds         int
}

func (f *chatFlags) add(c *cobra.Command) {
	f.runRefFlags.add(c)
	c.Flags().StringVar(&f.system, "system", "", "system to talk to: mascot (default), mascot-p, mascot-c or a baseline")
	c.Flags().StringVar(&f.roster, "roster", "", "roster of the run's config to use instead of the stage's")
	c.Flags().StringVar(&f.stage, "stage", "", "episodes stage of the run whose system to use (default: its evaluation stage)")
	c.Flags().IntVar(&f.rounds, "rounds", 1, "agent turns after each of your messages")
}

func newChat() *cobra.Command {
	var f chatFlags
	c := &cobra.Command{
		Use:   "chat RUN|SPEC",
		Short: "Talk to the trained system of a run in the terminal; conversations are stored as episodes",
		Long: `chat reopens a finished run (its endpoints, its trained adapters, its roster) and holds a
conversation with its system, one line per message. Each agent turn shows its speaker; /directive
shows the Director's directive (Agent / Action / Tone). After each exchange the conversation is
stored in the results database as an episode of stage "chat" (your turns marked human), so it
can be judged, exported and opened in mascot ui. stdin is read line by line, so it can be scripted.

Commands: /who (the roster), /directive (toggle directives), /undo (take back your last message),
/history, /save (store now and print where), /help, /quit.`,
		Example: `  mascot chat latest
  mascot chat demo --system mascot-c
  printf 'I failed my exam.\n/undo\nI passed!\n' | mascot chat latest`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			store, err := f.openStore(c.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			sys, err := f.open(c.Context(), c, store, args[0])
			if err != nil {
				return err
			}
			defer func() {
				if cerr := sys.Close(); cerr != nil {
					fmt.Fprintln(c.ErrOrStderr(), "mascot chat: closing endpoints:", cerr)
				}
			}()
			return chatLoop(c.Context(), c.InOrStdin(), c.OutOrStdout(), sys, isTerminal(os.Stdin))
		},
	}
	f.add(c)
	return c
}

// open resolves RUN|SPEC to a finished run and opens its system.
func (f *chatFlags) open(ctx context.Context, c *cobra.Command, store *results.Store, ref string) (*chat.System, error) {
	run, err := f.resolve(ctx, store, ref)
	if err != nil {
		return nil, err
	}
	opts, err := f.runOptions(c, store, run)
	if err != nil {
		return nil, err
	}
	sys, err := chat.Open(ctx, opts, run.ID, chat.Options{Stage: f.stage, System: f.system, Roster: f.roster, Rounds: f.rounds})
	if err != nil {
		return nil, fmt.Errorf("opening run %s: %w", run.ID, err)
	}
	return sys, nil
}
