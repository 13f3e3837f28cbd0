package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/schema"
)

// listEntry is one row of `mascot list --json`.
type listEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Requires names the tags a run needs (-t NAME=VALUE); Tags lists
	// every tag the config declares, with defaults and docs.
	Requires []string     `json:"requires"`
	Tags     []schema.Tag `json:"tags"`
}

func newList() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the embedded experiments, the tags each needs and a one-line description",
		Long: `list names every embedded experiment with the tags a run of it needs (server URLs are
never defaulted, so paper configs need -t vllm=URL -t judge=URL) and its description.
--json adds every tag each declares, with its default and what it is.`,
		Example: `  mascot list
  mascot list --json
  mascot show paper/qmsum`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			entries, err := listEntries()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(c.OutOrStdout(), entries)
			}
			printList(c.OutOrStdout(), entries)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON, every tag with its default")
	return c
}

func listEntries() ([]listEntry, error) {
	names, err := schema.EmbeddedNames()
	if err != nil {
		return nil, err
	}
	out := make([]listEntry, 0, len(names))
	for _, n := range names {
		tags, err := schema.EmbeddedTags(n)
		if err != nil {
			return nil, err
		}
		e := listEntry{Name: n, Description: schema.Describe(n), Requires: requiredTags(tags), Tags: tags}
		if e.Tags == nil {
			e.Tags = []schema.Tag{}
		}
		out = append(out, e)
	}
	return out, nil
}

func printList(w io.Writer, entries []listEntry) {
	nameW, tagW := len("NAME"), len("NEEDS")
	needs := make([]string, len(entries))
	for i, e := range entries {
		needs[i] = "-"
		if len(e.Requires) > 0 {
			needs[i] = "-t " + strings.Join(e.Requires, " -t ")
		}
		nameW, tagW = max(nameW, len(e.Name)), max(tagW, len(needs[i]))
	}
	fmt.Fprintf(w, "%-*s  %-*s  %s\n", nameW, "NAME", tagW, "NEEDS", "DESCRIPTION")
	for i, e := range entries {
		fmt.Fprintf(w, "%-*s  %-*s  %s\n", nameW, e.Name, tagW, needs[i], e.Description)
	}
}

func requiredTags(tags []schema.Tag) []string {
	out := []string{}
	for _, t := range tags {
		if t.Required {
			out = append(out, t.Name)
		}
	}
	return out
}

// printOpenTags tells, on stderr, which tags a loaded config left open
// (they read as @tag(NAME) in what is shown) and which have defaults.
func printOpenTags(w io.Writer, l *schema.Loaded) {
	for _, t := range l.Tags {
		switch {
		case isOpen(l, t.Name):
			fmt.Fprintf(w, "tag %s: open (required to run: -t %s=VALUE)%s\n", t.Name, t.Name, docSuffix(t))
		case !t.Required && t.Default != "":
			fmt.Fprintf(w, "tag %s: default %s%s\n", t.Name, t.Default, docSuffix(t))
		}
	}
}

// openNote is what `validate` adds after "ok" for a config with open tags.
func openNote(l *schema.Loaded) string {
	if len(l.Open) == 0 {
		return ""
	}
	return fmt.Sprintf(" (open tags, required to run: -t %s=VALUE)", strings.Join(l.Open, "=VALUE -t "))
}

func isOpen(l *schema.Loaded, name string) bool {
	for _, n := range l.Open {
		if n == name {
			return true
		}
	}
	return false
}

func docSuffix(t schema.Tag) string {
	if t.Doc == "" {
		return ""
	}
	return " — " + t.Doc
}
