package benchsuite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The benchmarks page keeps the latest table of each kind of suite run
// (which phases ran, at which scale) between a pair of markers, so the
// page's figures are what the suite printed and nobody copies them by
// hand. A run of another kind adds its own block; a run of the same kind
// replaces the block the previous one wrote.
const (
	blockOpen  = "<!-- benchsuite: "
	blockClose = "<!-- /benchsuite -->"
	// pageSection is the heading under which new blocks are added.
	pageSection = "## The benchmark suite"
)

// Label names the kind of run cfg makes: its phases and the store's scale.
func (cfg Config) Label() string {
	var on []string
	for _, p := range []string{"candidates", "store", "engine", "demo"} {
		if slices.Contains(cfg.Skip, p) {
			continue
		}
		if p == "store" {
			p = fmt.Sprintf("store at %d episodes", cfg.Episodes)
		}
		on = append(on, p)
	}
	return strings.Join(on, ", ")
}

// Block is the markdown the page holds for t: its markers, the command
// that reproduces it and the table in a code block.
func (t *Table) Block(cfg Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s -->\n", blockOpen, cfg.Label())
	fmt.Fprintf(&b, "Latest run of this kind, written by the suite (`MASCOT_BENCH_PAGE`):\n\n```\n%s\n", cfg.Command())
	t.Print(&b)
	b.WriteString("```\n" + blockClose + "\n")
	return b.String()
}

// Command is the shell command that makes a run like cfg.
func (cfg Config) Command() string {
	var env []string
	if cfg.Episodes == paperScale {
		env = append(env, "MASCOT_BENCH_100K=1")
	} else if cfg.Episodes != 10_000 {
		env = append(env, fmt.Sprintf("MASCOT_BENCH_EPISODES=%d", cfg.Episodes))
	}
	if cfg.Rounds != defaultRounds {
		env = append(env, fmt.Sprintf("MASCOT_BENCH_ROUNDS=%d", cfg.Rounds))
	}
	if len(cfg.Skip) > 0 {
		env = append(env, "MASCOT_BENCH_SKIP="+strings.Join(cfg.Skip, ","))
	}
	env = append(env, "go test ./internal/benchsuite -run '^$' -bench Suite -benchtime 1x -timeout 2h")
	return strings.Join(env, " ")
}

// WritePage puts block into the page at path: in place of the block of
// the same label, or else in the suite's section, before its first
// subsection. The page is
// replaced whole (a temporary file renamed over it).
func WritePage(path, block string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the benchmarks page: %w", err)
	}
	head, _, _ := strings.Cut(block, "\n")
	var out []byte
	if i := bytes.Index(page, []byte(head+"\n")); i >= 0 {
		j := bytes.Index(page[i:], []byte(blockClose+"\n"))
		if j < 0 {
			return fmt.Errorf("%s: the block %q has no closing %s", path, head, blockClose)
		}
		out = append(append(append([]byte{}, page[:i]...), block...), page[i+j+len(blockClose)+1:]...)
	} else {
		s := bytes.Index(page, []byte("\n"+pageSection))
		if s < 0 {
			return fmt.Errorf("%s: no %q section to add the suite's table to", path, pageSection)
		}
		// Before the section's first subsection, or at its end (the next
		// heading of its level).
		end := len(page)
		if k := bytes.Index(page[s+1:], []byte("\n## ")); k >= 0 {
			end = s + 1 + k + 1
		}
		if k := bytes.Index(page[s+1:end], []byte("\n### ")); k >= 0 {
			end = s + 1 + k + 1
		}
		out = append(append(append([]byte{}, page[:end]...), []byte(block+"\n")...), page[end:]...)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".benchmarks-*.md")
	if err != nil {
		return fmt.Errorf("writing the benchmarks page: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the benchmarks page: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the benchmarks page: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
