package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
)

// docBlock is one fenced code block of a Markdown page.
type docBlock struct {
	info string // the fence's info string, e.g. "sh runnable" or "cue file=tour.cue"
	line int    // line of the opening fence
	body string
}

// docBlocks returns the fenced code blocks of a Markdown file.
func docBlocks(path string) ([]docBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []docBlock
	var cur *docBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		}
	}
	return out, sc.Err()
}

// docFields splits a documented command line into arguments; it understands
// single and double quotes, which is all the docs use.
func docFields(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// TestDocExamples runs the examples of README.md and docs/*.md as a reader
// would: every ```cue file=NAME block is written to NAME in a fresh
// directory (one per page), then every `mascot ...` line of a
// ```sh runnable block runs there, in order, and must exit 0 (or the code a
// trailing "# exit N" names).
func TestDocExamples(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../../README.md"}, pages...)
	ran := 0
	for _, page := range pages {
		blocks, err := docBlocks(page)
		if err != nil {
			t.Fatal(err)
		}
		var runnable []docBlock
		for _, b := range blocks {
			if strings.HasSuffix(b.info, " runnable") {
				runnable = append(runnable, b)
			}
		}
		if len(runnable) == 0 {
			continue
		}
		t.Run(filepath.Base(page), func(t *testing.T) {
			dir := t.TempDir()
			for _, b := range blocks {
				lang, attr, _ := strings.Cut(b.info, " ")
				if name, ok := strings.CutPrefix(attr, "file="); ok && lang == "cue" {
					if filepath.Base(name) != name {
						t.Fatalf("%s:%d: file=%q must be a plain file name", page, b.line, name)
					}
					if err := os.WriteFile(filepath.Join(dir, name), []byte(b.body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			chdir(t, dir)
			for _, b := range runnable {
				for i, line := range strings.Split(b.body, "\n") {
					cmd, comment, _ := strings.Cut(line, " #")
					cmd = strings.TrimSpace(cmd)
					if !strings.HasPrefix(cmd, "mascot ") {
						continue
					}
					want := 0
					if code, ok := strings.CutPrefix(strings.TrimSpace(comment), "exit "); ok {
						if want, err = strconv.Atoi(code); err != nil {
							t.Fatalf("%s:%d: bad exit code %q", page, b.line+1+i, code)
						}
					}
					args, err := docFields(strings.TrimPrefix(cmd, "mascot "))
					if err != nil {
						t.Fatalf("%s:%d: %v", page, b.line+1+i, err)
					}
					var out, errb bytes.Buffer
					got := cli.Run(context.Background(), args, &out, &errb)
					if got != want {
						t.Fatalf("%s:%d: %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s",
							page, b.line+1+i, cmd, got, want, out.String(), lastLines(errb.String(), 30))
					}
					ran++
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no runnable example found in README.md or docs/*.md")
	}
}

// chdir changes the working directory for the rest of the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Chdir(wd); err != nil {
			t.Errorf("restoring the working directory: %v", err)
		}
	})
}
