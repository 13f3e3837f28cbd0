package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// tourSpec is the README's tour.cue, as the README shows it.
func tourSpec(t *testing.T) string {
	t.Helper()
	blocks, err := docBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.info == "cue file=tour.cue" {
			return b.body
		}
	}
	t.Fatal("README.md has no ```cue file=tour.cue block")
	return ""
}

// canBlockNetwork reports whether `unshare -rn` can run a command in a
// network namespace of its own (with loopback only, which it brings up).
func canBlockNetwork() bool {
	if _, err := exec.LookPath("unshare"); err != nil {
		return false
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false
	}
	return exec.Command("unshare", "-rn", "sh", "-c", "ip link set lo up").Run() == nil
}

// TestCapsuleReplaysTheTourOffline runs the README's tour, packs it with
// `mascot export latest --capsule`, and replays the capsule in an empty
// directory inside a network namespace of its own (nothing outside it is
// reachable; the built-in engine the run used is gone): `mascot report
// --format json` there is byte-identical to the run's. A capsule missing
// one reply replays to an error naming the request and the stage that
// would differ.
func TestCapsuleReplaysTheTourOffline(t *testing.T) {
	testgate.Long(t, "the tour run, then two replays of it: a few minutes on 2 cores")
	testgate.Need(t, canBlockNetwork(), "unshare -rn and ip (user and network namespaces) are needed to replay with networking blocked")
	bin := filepath.Join(t.TempDir(), "mascot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mascot: %v\n%s", err, out)
	}
	mascot := func(dir string, args ...string) ([]byte, error) {
		c := exec.Command(bin, args...)
		c.Dir = dir
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		if err != nil {
			return append(out.Bytes(), errb.Bytes()...), err
		}
		return out.Bytes(), nil
	}
	orig := t.TempDir()
	if err := os.WriteFile(filepath.Join(orig, "tour.cue"), []byte(tourSpec(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := mascot(orig, "run", "tour.cue"); err != nil {
		t.Fatalf("mascot run tour.cue: %v\n%s", err, out)
	}
	want, err := mascot(orig, "report", "latest", "--format", "json")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, want)
	}
	capsule := filepath.Join(orig, "tour.capsule")
	if out, err := mascot(orig, "export", "latest", "--capsule", capsule); err != nil {
		t.Fatalf("export --capsule: %v\n%s", err, out)
	}

	empty := t.TempDir()
	if err := copyFile(capsule, filepath.Join(empty, "tour.capsule")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("unshare", "-rn", "sh", "-c", `ip link set lo up && exec "$0" "$@"`, bin, "replay", "tour.capsule")
	c.Dir = empty
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("replay with networking blocked: %v\n%s", err, lastLines(string(out), 30))
	}
	if !bytes.Contains(out, []byte("identical: every stage matches the capsule")) {
		t.Fatalf("replay did not say it matched:\n%s", out)
	}
	got, err := mascot(empty, "report", "latest", "--format", "json")
	if err != nil {
		t.Fatalf("report of the replay: %v\n%s", err, got)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the replay's report JSON differs from the run's:\nrun:\n%.600s\nreplay:\n%.600s", want, got)
	}
	if bytes.Count(want, []byte(`"ci_low"`)) < 5 {
		t.Fatalf("the tour's report has too few cells to compare:\n%s", want)
	}

	// A capsule without one of its replies: the replay says which request
	// is missing and which stage would differ, and exits 1.
	cut := filepath.Join(t.TempDir(), "cut.capsule")
	key := dropOneReply(t, capsule, cut)
	other := t.TempDir()
	out, err = mascot(other, "replay", cut)
	if err == nil {
		t.Fatalf("a capsule missing a reply replayed without error:\n%s", out)
	}
	if !bytes.Contains(out, []byte("missing: stage ")) || !bytes.Contains(out, []byte(key)) ||
		!bytes.Contains(out, []byte("first differing stage ")) {
		t.Fatalf("the replay of a capsule without reply %s does not name it and its stage:\n%s", key, out)
	}
}

// dropOneReply copies capsule src to dst without the first reply of a
// judge request, and returns that reply's key.
func dropOneReply(t *testing.T, src, dst string) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	dropped := ""
	for _, m := range zr.File {
		r, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m.Name == "replies.jsonl" {
			var kept []string
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if dropped == "" && strings.Contains(line, `|judge:`) {
					_, rest, _ := strings.Cut(line, `"key":"`)
					dropped, _, _ = strings.Cut(rest, `"`)
					continue
				}
				kept = append(kept, line)
			}
			b = []byte(strings.Join(kept, "\n") + "\n")
		}
		w, err := zw.Create(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if dropped == "" {
		t.Fatal("the capsule holds no judge reply")
	}
	return dropped
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
