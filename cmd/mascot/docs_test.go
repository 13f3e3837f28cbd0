package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
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
	for i, p := range pages {
		if pages[i], err = filepath.Abs(p); err != nil {
			t.Fatal(err)
		}
	}
	repoTestdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
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
			// Pages run "from the repository root": the data the
			// repository ships is where they say.
			if err := os.Symlink(repoTestdata, filepath.Join(dir, "testdata")); err != nil {
				t.Fatal(err)
			}
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
			defer func() {
				if filepath.Base(page) == "README.md" && !t.Failed() {
					checkCounterList(t, page, dir)
				}
			}()
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
					if want == 0 {
						if why := unreadData(out.String() + errb.String()); why != "" {
							t.Fatalf("%s:%d: %s: exit 0, but %s\nstdout:\n%s", page, b.line+1+i, cmd, why, lastLines(out.String(), 30))
						}
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

// unreadData says why a documented command that exited 0 did not do what
// its page says: it could not read a dataset (plan reports that in a note
// and still exits 0), or "" when it could.
func unreadData(out string) string {
	for _, sign := range []string{"not found; mascot looked in", "wrong split"} {
		if strings.Contains(out, sign) {
			return "a dataset could not be read (" + sign + ")"
		}
	}
	return ""
}

// counterName matches a counter name written in backquotes in the README.
var counterName = regexp.MustCompile("`((?:llm|plugin)\\.<[a-z]+>\\.[a-z0-9_]+|[a-z][a-z0-9_]*_[a-z0-9_]+)`")

// checkCounterList reads the bullet list of the README's "## Counters"
// section and checks that every run_summary.json the tour wrote (the
// first run's and the cached rerun's) has every name in it, with <role>
// standing for each role and <plugin> for each judge plugin the first
// run used.
func checkCounterList(t *testing.T, readme, dir string) {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## Counters\n")
	if !ok {
		t.Fatal("README.md has no \"## Counters\" section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var names []string
	inList := false
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			inList = true
		case inList && strings.HasPrefix(line, "  "):
		default:
			inList = false
			continue
		}
		for _, m := range counterName.FindAllStringSubmatch(line, -1) {
			names = append(names, m[1])
		}
	}
	if len(names) < 20 {
		t.Fatalf("README's counter list has %d names: %v", len(names), names)
	}
	sums, err := filepath.Glob(filepath.Join(dir, "runs", "*", "run_summary.json"))
	if err != nil || len(sums) < 2 {
		t.Fatalf("the tour wrote %d run_summary.json, want its two runs' (%v)", len(sums), err)
	}
	sort.Strings(sums) // run ids sort by start time; the first run did the work
	read := func(path string) map[string]int64 {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var summary struct {
			Counters map[string]int64 `json:"counters"`
		}
		if err := json.Unmarshal(raw, &summary); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return summary.Counters
	}
	summary := struct{ Counters map[string]int64 }{read(sums[0])}
	roles, plugins := map[string]bool{}, map[string]bool{}
	for k := range summary.Counters {
		parts := strings.Split(k, ".")
		if len(parts) == 3 && parts[0] == "llm" {
			roles[parts[1]] = true
		}
		if len(parts) == 3 && parts[0] == "plugin" {
			plugins[parts[1]] = true
		}
	}
	for _, r := range []string{"director", "speaker", "user"} {
		if !roles[r] {
			t.Errorf("run_summary.json has no llm.%s.* counters", r)
		}
	}
	if len(plugins) == 0 {
		t.Error("run_summary.json has no plugin.* counters though the tour runs the rubric judge")
	}
	for _, n := range names {
		var want []string
		switch {
		case strings.Contains(n, "<role>"):
			for r := range roles {
				want = append(want, strings.Replace(n, "<role>", r, 1))
			}
		case strings.Contains(n, "<plugin>"):
			for p := range plugins {
				want = append(want, strings.Replace(n, "<plugin>", p, 1))
			}
		default:
			want = []string{n}
		}
		for _, path := range sums {
			c := read(path)
			for _, w := range want {
				if _, ok := c[w]; !ok {
					t.Errorf("README lists counter %s but %s has no %s", n, filepath.Base(filepath.Dir(path)), w)
				}
			}
		}
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
