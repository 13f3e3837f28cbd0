package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/plugins/builtin"
)

func newPlugin() *cobra.Command {
	c := &cobra.Command{Use: "plugin", Short: "Built-in judge and metric plugins"}
	c.AddCommand(&cobra.Command{
		Use:   "serve NAME",
		Short: "Serve a built-in plugin over go-plugin (started by mascot itself, not by hand)",
		Long: "Serve runs one built-in plugin (" + strings.Join(builtin.Names(), ", ") + `) as an
out-of-process go-plugin server. mascot starts it for judge and metrics stages; run by
hand it explains that it must be started by a mascot host.`,
		Example: "  mascot plugin list\n  mascot plugin serve self-bleu   # normally started by mascot run",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if builtin.Kind(args[0]) == "" {
				return invalid("no built-in plugin %q (have %s)", args[0], strings.Join(builtin.Names(), ", "))
			}
			return builtin.Serve(args[0])
		},
	}, &cobra.Command{
		Use:     "list",
		Short:   "List the built-in plugins",
		Example: "  mascot plugin list",
		Args:    exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			for _, n := range builtin.Names() {
				fmt.Fprintf(c.OutOrStdout(), "%-20s %s\n", n, builtin.Kind(n))
			}
			return nil
		},
	})
	return c
}
