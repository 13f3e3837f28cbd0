package all_test

import (
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// walkthrough returns the files of docs/spec.md's "Adding a kind" (its txtar
// block) and the registration line (the go block after it).
func walkthrough(t *testing.T, doc string) (*txtar.Archive, string) {
	t.Helper()
	_, sec, ok := strings.Cut(doc, "#### Adding a kind")
	if !ok {
		t.Fatal("docs/spec.md has no \"Adding a kind\" section")
	}
	_, rest, ok := strings.Cut(sec, "```txtar\n")
	if !ok {
		t.Fatal("the walkthrough has no txtar block")
	}
	files, rest, _ := strings.Cut(rest, "\n```\n")
	_, rest, ok = strings.Cut(rest, "```go\n")
	if !ok {
		t.Fatal("the walkthrough has no go block with the registration line")
	}
	line, _, _ := strings.Cut(rest, "\n```")
	return txtar.Parse([]byte(files + "\n")), strings.TrimSpace(line)
}

// TestWalkthroughAddsAKind follows docs/spec.md's "Adding a kind" to the
// letter, in a build overlay so the tree is untouched: the new kind's files
// all lie in one new folder under runner/stages, and the one line added to
// runner/stages/all is the only other change. With them the folder's own
// test passes, and the mascot binary validates a spec using the kind and
// refuses one breaking its bound.
func TestWalkthroughAddsAKind(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	ar, line := walkthrough(t, string(doc))
	if len(ar.Files) < 3 {
		t.Fatalf("the walkthrough has %d files, want the CUE, the package and its test", len(ar.Files))
	}
	folder := path.Dir(ar.Files[0].Name)
	if path.Dir(folder) != "runner/stages" {
		t.Fatalf("the walkthrough's kind lives in %s, not a folder of runner/stages", folder)
	}
	if _, err := os.Stat(filepath.Join(root, folder)); !os.IsNotExist(err) {
		t.Fatalf("%s already exists: the walkthrough must add a kind", folder)
	}
	tmp := t.TempDir()
	replace := map[string]string{}
	for _, f := range ar.Files {
		if path.Dir(f.Name) != folder {
			t.Errorf("the walkthrough touches %s outside the kind's folder %s", f.Name, folder)
		}
		if strings.HasSuffix(f.Name, ".go") {
			if src, err := format.Source(f.Data); err != nil || string(src) != string(f.Data) {
				t.Errorf("the walkthrough's %s is not gofmt-ed (%v)", f.Name, err)
			}
		}
		p := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, filepath.FromSlash(f.Name))] = p
	}
	if want := `_ "mascot.dev/mascot/` + folder + `"`; line != want {
		t.Fatalf("the registration line is %q, want %q", line, want)
	}
	allGo, err := os.ReadFile("all.go")
	if err != nil {
		t.Fatal(err)
	}
	head, tail, ok := strings.Cut(string(allGo), "\n)\n")
	if !ok {
		t.Fatal("all.go has no import block")
	}
	added := filepath.Join(tmp, "all.go")
	if err := os.WriteFile(added, []byte(head+"\n\t"+line+"\n)\n"+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	replace[filepath.Join(root, "runner", "stages", "all", "all.go")] = added
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlay, b, 0o644); err != nil {
		t.Fatal(err)
	}

	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The folder exists only in the overlay, so its test binary is built
	// here and run in the folder's copy.
	testBin := filepath.Join(tmp, "kind.test")
	goCmd("test", "-c", "-vet=off", "-overlay", overlay, "-o", testBin, "./"+folder)
	run := exec.Command(testBin, "-test.count=1", "-test.v")
	run.Dir = filepath.Join(tmp, filepath.FromSlash(folder))
	if out, err := run.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: Test") {
		t.Fatalf("the walkthrough's test: %v\n%s", err, out)
	}
	bin := filepath.Join(tmp, "mascot")
	goCmd("build", "-overlay", overlay, "-o", bin, "./cmd/mascot")

	kind := path.Base(folder)
	spec := func(name, stage string) string {
		p := filepath.Join(tmp, name)
		src := `package spec

import "mascot.dev/experiments/personas"

name: "walkthrough"
datasets: es: {name: "esconv", path: "embed:demo/data/esconv.json", limit: 1}
rosters: support: personas.emotional_support
endpoints: speaker: {urls: ["http://127.0.0.1:1/v1"], model: "m"}
stages: cand: {kind: "candidates", dataset: "es", roster: "support"}
stages: again: ` + stage + "\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out, err := exec.Command(bin, "validate", spec("ok.cue", `{kind: "`+kind+`", from: "cand", times: 2}`)).CombinedOutput()
	if err != nil {
		t.Errorf("mascot validate of a spec using %s: %v\n%s", kind, err, out)
	}
	out, err = exec.Command(bin, "validate", spec("bad.cue", `{kind: "`+kind+`", from: "cand", times: 0}`)).CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "stages.again.times: invalid value 0 (out of bound >=1)") {
		t.Errorf("mascot validate of a bad %s stage: exit %d\n%s", kind, code, out)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
