package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
)

// recipeData is where the guide's recipes keep their data on a GPU
// server, and the shipped data standing in for each here.
var recipeData = map[string]string{
	"/data/qmsum":               "qmsum",
	"/data/empatheticdialogues": "empatheticdialogues-format",
}

// recipeLines returns the `mascot` command lines of the plain ```sh blocks
// of a page (the ```sh runnable ones TestDocExamples runs), continuation
// lines joined, with the line each starts on.
func recipeLines(t *testing.T, page string) (lines []string, at []int) {
	t.Helper()
	blocks, err := docBlocks(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.info != "sh" {
			continue
		}
		var cur string
		start := 0
		for i, l := range strings.Split(b.body, "\n") {
			l, _, _ = strings.Cut(l, " #")
			l = strings.TrimSpace(l)
			if cur == "" {
				start = b.line + 1 + i
			}
			if cont, ok := strings.CutSuffix(l, `\`); ok {
				cur += cont + " "
				continue
			}
			cur += l
			if strings.HasPrefix(cur, "mascot ") {
				lines, at = append(lines, cur), append(at, start)
			}
			cur = ""
		}
	}
	return lines, at
}

// TestGuideRecipesPlanOnShippedData checks docs/guide.md's recipes as
// written: every `mascot plan`, `validate`, `run` and `sweep` line of its
// shell blocks must exit 0 and read its data, with the recipe's /data/...
// directory replaced by the data the repository ships. A run or sweep is
// planned with the same arguments (no server answers here: planning reads
// the data and checks the config, tags and -m axes without one).
func TestGuideRecipesPlanOnShippedData(t *testing.T) {
	page, err := filepath.Abs("../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	datasets, err := filepath.Abs("../../testdata/datasets")
	if err != nil {
		t.Fatal(err)
	}
	lines, at := recipeLines(t, page)
	chdir(t, t.TempDir())
	checked := map[string]int{}
	for i, line := range lines {
		args, err := docFields(strings.TrimPrefix(line, "mascot "))
		if err != nil {
			t.Fatalf("guide.md:%d: %v", at[i], err)
		}
		cmd := args[0]
		switch cmd {
		case "plan", "validate":
		case "run", "sweep":
			args[0] = "plan"
		default:
			continue // commands on an existing run (results, report, export...)
		}
		for j, a := range args {
			if !strings.Contains(a, "/data/") {
				continue
			}
			k, v, _ := strings.Cut(a, "=")
			rel, ok := recipeData[v]
			if !ok {
				t.Fatalf("guide.md:%d: %s names %s, which no shipped data stands in for (recipeData)", at[i], k, v)
			}
			args[j] = k + "=" + filepath.Join(datasets, rel)
		}
		if !slices.Contains(args, "--db") {
			args = append(args, "--db", filepath.Join(t.TempDir(), "m.db"))
		}
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), args, &out, &errb); code != 0 {
			t.Errorf("guide.md:%d: %s: exit %d\n%s\n%s", at[i], line, code, lastLines(out.String(), 20), lastLines(errb.String(), 20))
			continue
		}
		if why := unreadData(out.String() + errb.String()); why != "" {
			t.Errorf("guide.md:%d: %s: %s\n%s", at[i], line, why, lastLines(out.String(), 30))
		}
		checked[cmd]++
	}
	// The page's recipes: paper/qmsum planned and run, paper/model-size
	// planned and swept.
	if checked["plan"] < 2 || checked["run"] < 1 || checked["sweep"] < 1 {
		t.Errorf("checked %v of the guide's recipe lines; want at least 2 plan, 1 run, 1 sweep", checked)
	}
}
