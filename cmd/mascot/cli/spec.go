package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/format"
	"github.com/spf13/cobra"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

func newShow() *cobra.Command {
	var f specFlags
	var asCUE bool
	c := &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print the fully resolved config as JSON (or CUE)",
		Example: `  mascot show demo
  mascot show paper/qmsum -t vllm=http://127.0.0.1:8000/v1 -t judge=http://127.0.0.1:8001/v1 --cue`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := f.load(args[0])
			if err != nil {
				return err
			}
			printOpenTags(c.ErrOrStderr(), l)
			if asCUE {
				b, err := format.Node(l.Value.Syntax(cue.Final(), cue.Concrete(true)))
				if err != nil {
					return fmt.Errorf("formatting CUE: %w", err)
				}
				_, err = c.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			var x any
			_ = json.Unmarshal(l.Canonical, &x)
			b, _ := json.MarshalIndent(x, "", "  ")
			fmt.Fprintln(c.OutOrStdout(), string(b))
			return nil
		},
	}
	f.add(c)
	f.open = true
	c.Flags().BoolVar(&asCUE, "cue", false, "print CUE instead of JSON")
	return c
}

func newValidate() *cobra.Command {
	var f specFlags
	c := &cobra.Command{
		Use:   "validate NAME|FILE...",
		Short: "Validate experiments; exit 2 with every positioned error",
		Example: `  mascot validate my.cue
  mascot validate paper/qmsum -t vllm=http://127.0.0.1:8000/v1 -t judge=http://127.0.0.1:8001/v1`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalid("validate needs at least one NAME or FILE")
			}
			var all schema.Errors
			for _, a := range args {
				l, err := f.load(a)
				if err != nil {
					var es schema.Errors
					if !asErrors(err, &es) {
						return err
					}
					all = append(all, es...)
					continue
				}
				fmt.Fprintf(c.OutOrStdout(), "%s: ok%s\n", a, openNote(l))
			}
			if len(all) > 0 {
				return all
			}
			return nil
		},
	}
	f.add(c)
	f.open = true
	return c
}

func newSchema() *cobra.Command {
	c := &cobra.Command{Use: "schema", Short: "Work with the embedded CUE schema"}
	c.AddCommand(&cobra.Command{
		Use:   "vendor DIR",
		Short: "Write the schema and experiments under DIR/cue.mod/gen so the cue CLI and editors see them",
		Example: `  mascot schema vendor .
  go tool cue vet -c ./my-experiment`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			n, err := schema.Vendor(args[0], runner.Default.Kinds())
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %d files under %s\n", n,
				filepath.Join(args[0], "cue.mod", "gen", schema.ImportPrefix))
			return nil
		},
	})
	return c
}

func asErrors(err error, out *schema.Errors) bool {
	es, ok := err.(schema.Errors)
	if ok {
		*out = es
	}
	return ok
}

// fileExists reports whether p names an existing file.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
