package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// WriteCLIReference writes the CLI reference (one Markdown page per
// command, generated from the commands' own Use, Long, Example and flags)
// into dir. docs/cli is this output; TestCLIReferenceIsCurrent keeps it so.
func WriteCLIReference(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	root := newRoot()
	root.DisableAutoGenTag = true
	for _, c := range root.Commands() {
		disableAutoGenTag(c)
	}
	link := func(name string) string { return strings.ToLower(name) }
	prepend := func(string) string { return "" }
	if err := doc.GenMarkdownTreeCustom(root, dir, prepend, link); err != nil {
		return fmt.Errorf("generating the CLI reference: %w", err)
	}
	return nil
}

func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, s := range c.Commands() {
		disableAutoGenTag(s)
	}
}

func newDocs() *cobra.Command {
	return &cobra.Command{
		Use:     "docs DIR",
		Short:   "Write the CLI reference (Markdown, one page per command) into DIR",
		Hidden:  true,
		Example: `  mascot docs docs/cli`,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return WriteCLIReference(filepath.Clean(args[0]))
		},
	}
}
