package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
)

// loraFolder finds the adapter folders the docs tell a user to serve
// (`--lora NAME=runs/RUN/...`, `--lora-modules NAME=runs/RUN/...`).
var loraFolder = regexp.MustCompile(`--lora(?:-modules)? \w+=(runs/RUN/[^\s` + "`" + `)]+)`)

// checkArtifactFolders checks, on the demo's first run (out; dir is where
// it ran, repo the repository root), that the adapter
// folders `mascot serve --help` and docs/guide.md name are the folders
// training wrote (adapter_config.json directly inside), that every
// adapter the run lists lies in runs/RUN/<stage>, and that no checkpoint
// folder is left beside the outputs once training finished.
func checkArtifactFolders(t *testing.T, repo, dir, out string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^run directory: runs/(\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the run printed no run directory:\n%s", lastLines(out, 10))
	}
	runID := m[1]
	var help, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"serve", "--help"}, &help, &errb); code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, errb.String())
	}
	guide, err := os.ReadFile(filepath.Join(repo, "docs", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for where, text := range map[string]string{"mascot serve --help": help.String(), "docs/guide.md": string(guide)} {
		for _, f := range loraFolder.FindAllStringSubmatch(text, -1) {
			named++
			p := filepath.Join(dir, strings.Replace(f[1], "RUN", runID, 1))
			if _, err := os.Stat(filepath.Join(p, "adapter_config.json")); err != nil {
				t.Errorf("%s names %s, but training wrote no adapter there: %v", where, f[1], err)
			}
		}
	}
	if named == 0 {
		t.Error("neither serve --help nor the guide names an adapter folder (runs/RUN/...)")
	}
	adapters := regexp.MustCompile(`(?m)^  adapter +(\S+)$`).FindAllStringSubmatch(out, -1)
	if len(adapters) == 0 {
		t.Errorf("the run lists no adapter:\n%s", lastLines(out, 12))
	}
	for _, a := range adapters {
		if filepath.Dir(a[1]) != filepath.Join(dir, "runs", runID) {
			t.Errorf("adapter %s is not a stage folder of runs/%s", a[1], runID)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "runs", runID))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "-checkpoint") {
			t.Errorf("runs/%s/%s: a checkpoint folder is left beside the outputs", runID, e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("runs/checkpoints is left after every training unit finished (%v)", err)
	}
}
