package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/web"
	"mascot.dev/mascot/runner/chat"
)

func newUI() *cobra.Command {
	var db, addr string
	var cf chatFlags
	c := &cobra.Command{
		Use:   "ui [--db PATH] [--addr 127.0.0.1:8080]",
		Short: "Web viewer: runs, stages, conversations, judgments, training curves, comparisons, human evaluation, chat",
		Example: `  mascot ui
  mascot ui --db runs.db --addr 127.0.0.1:9090`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if !fileExists(db) {
				return invalid("no results database at %s (run an experiment first, or pass --db)", db)
			}
			opts := web.Options{DB: db, Addr: addr, Ready: func(a string) {
				fmt.Fprintf(c.ErrOrStderr(), "mascot ui: serving %s on http://%s/\n", db, a)
			}}
			// The chat page runs the trained models: only for a viewer on
			// loopback, where only this machine's user reaches it.
			if loopback(addr) {
				store, err := results.OpenContext(c.Context(), db)
				if err != nil {
					return fmt.Errorf("opening results database: %w", err)
				}
				defer store.Close()
				cf.db = db
				chats := &webChats{f: &cf, c: c, ctx: c.Context(), store: store, systems: map[string]*chat.System{}}
				defer chats.close()
				opts.Chat = chats.open
			}
			return web.Serve(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&db, "db", results.DefaultPath, "results database (SQLite)")
	c.Flags().StringVar(&addr, "addr", web.DefaultAddr, "listen address (loopback by default; the chat page is served on loopback only)")
	c.Flags().StringVar(&cf.runsDir, "runs-dir", "runs", "directory of the runs' files (for the chat page)")
	c.Flags().IntVar(&cf.rounds, "chat-rounds", 1, "agent turns after each message on the chat page")
	return c
}
