package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/web"
)

func newUI() *cobra.Command {
	var db, addr string
	c := &cobra.Command{
		Use:   "ui [--db PATH] [--addr 127.0.0.1:8080]",
		Short: "Web viewer: runs, stages, conversations, judgments, training curves, comparisons, human evaluation",
		Example: `  mascot ui
  mascot ui --db runs.db --addr 127.0.0.1:9090`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if !fileExists(db) {
				return invalid("no results database at %s (run an experiment first, or pass --db)", db)
			}
			return web.Serve(c.Context(), web.Options{DB: db, Addr: addr, Ready: func(a string) {
				fmt.Fprintf(c.ErrOrStderr(), "mascot ui: serving %s on http://%s/\n", db, a)
			}})
		},
	}
	c.Flags().StringVar(&db, "db", results.DefaultPath, "results database (SQLite)")
	c.Flags().StringVar(&addr, "addr", web.DefaultAddr, "listen address (loopback by default)")
	return c
}

func init() { extraCommands = append(extraCommands, newUI) }
