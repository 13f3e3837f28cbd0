package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdCitation finds a cited markdown file in prose or code comments:
// "docs/mascot.md", "trainer.md §3", "see design.md".
var mdCitation = regexp.MustCompile(`(?:^|[^\w/.:-])((?:[\w.-]+/)*[\w.-]+\.md)\b`)

// writtenAtRunTime are .md names the program writes (a run's report), not
// pages a reader could look up in the repository.
var writtenAtRunTime = map[string]bool{"report.md": true}

// TestNoCitationOfMissingFiles: no comment, doc or script cites a markdown
// file the repository does not contain. Notes the code relies on live in
// docs/ and docs/design/, in the project's words; a citation of a page
// kept elsewhere ("trainer.md §3", "docs/mascot.md") sends the reader
// nowhere. A name resolves next to the citing file, at the root, in docs/
// or in docs/design/.
func TestNoCitationOfMissingFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	text := regexp.MustCompile(`\.(go|md|cue|sh|in|ya?ml|py|txtar|proto|js|mjs|html|css)$`)
	checked := 0
	for _, rel := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !text.MatchString(rel) || rel == "cmd/mascot/citations_test.go" { // this file's examples
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // deleted in the work tree
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range mdCitation.FindAllStringSubmatchIndex(line, -1) {
				name := line[m[2]:m[3]]
				if writtenAtRunTime[filepath.Base(name)] || strings.Contains(line[max(0, m[2]-80):m[2]], "://") {
					continue
				}
				checked++
				found := false
				for _, dir := range []string{filepath.Dir(rel), ".", "docs", "docs/design"} {
					if _, err := os.Stat(filepath.Join(root, dir, name)); err == nil {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s:%d cites %s, which the repository does not contain", rel, i+1, name)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d citations checked: the pattern misses them", checked)
	}
}

// TestCitationPatternFindsWhatItMustRefuse: the pattern sees the forms a
// stale citation takes, so the test above cannot pass by missing them.
func TestCitationPatternFindsWhatItMustRefuse(t *testing.T) {
	for line, want := range map[string]string{
		"// the loss of trainer.md §3, in our words": "trainer.md",
		"# (docs/distributed.md 1.2)":                "docs/distributed.md",
		"see style.md.":                              "style.md",
		"[x](../docs/mascot.md#rosters)":             "../docs/mascot.md",
	} {
		m := mdCitation.FindStringSubmatch(line)
		if m == nil || m[1] != want {
			t.Errorf("%q: found %v, want %s", line, m, want)
		}
	}
	if m := mdCitation.FindStringSubmatch("https://github.com/x/y/blob/main/README.md"); m != nil && !strings.Contains(m[0], "README") {
		t.Errorf("a URL: %v", m)
	}
}

// diary finds the marks of a benchmark diary: issue numbers, commits and
// dates of runs, the load they ran under, rounds of work.
var diary = regexp.MustCompile(`(?i)\bissues? [0-9]+\b|\bmain at [0-9a-f]{7}|\bcommit [0-9a-f]{7,40}\b|\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b|[0-9]{2}:[0-9]{2}(–[0-9]{2}:[0-9]{2})? UTC|\bload (average )?(of )?(about )?[0-9]|\bthis round\b|\bbranch [a-z]+[0-9]+\b`)

// TestUserDocsHoldNoBenchmarkDiary: README.md and the user guides in docs/
// say what the code does and how to measure it; measured figures, with
// their dates, commits and load, live only in docs/benchmarks.md.
func TestUserDocsHoldNoBenchmarkDiary(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, p := range pages {
		if filepath.Base(p) == "benchmarks.md" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(b), "\n") {
			if m := diary.FindString(line); m != "" {
				t.Errorf("%s:%d: %q reads like a benchmark diary (figures and their runs go in docs/benchmarks.md): %s", rel, i+1, m, line)
			}
		}
	}
	for _, line := range []string{"Measured 2026-12-03 09:02–09:09 UTC", "main at 229756e", "the goal of issue 14", "(load 6–9)"} {
		if !diary.MatchString(line) {
			t.Errorf("the diary pattern misses %q", line)
		}
	}
}
