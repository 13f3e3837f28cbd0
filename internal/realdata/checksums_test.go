package realdata

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedQMSumIsUpstreamBytes checks that every file shipped under
// qmsum/ is, byte for byte, the file of Yale-LILY/QMSum it claims to be:
// qmsum/SHA256SUMS holds the SHA-256 of each one as read from that
// repository's data/ALL (and LICENSE) at commit 83d7768 (the commit
// testdata/datasets/README.md names), and no shipped file is missing from
// it. An edited meeting, or a file added without its upstream digest,
// fails here.
func TestShippedQMSumIsUpstreamBytes(t *testing.T) {
	// The repository's own copy, whatever MASCOT_SHARED_DATASETS says.
	dir := filepath.Join("..", "..", "testdata", "datasets", "qmsum")
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS:%d: %q is not \"<sha256>  <path>\"", n, sc.Text())
		}
		want[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "SHA256SUMS" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		switch sum, ok := want[rel]; {
		case !ok:
			t.Errorf("qmsum/%s is shipped but has no upstream digest in SHA256SUMS", rel)
		case hex.EncodeToString(h[:]) != sum:
			t.Errorf("qmsum/%s differs from Yale-LILY/QMSum's file (sha256 %x, upstream %s)", rel, h, sum)
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("%d files shipped under qmsum/, SHA256SUMS lists %d", seen, len(want))
	}
	for _, split := range []string{"train", "test"} {
		if m, _ := filepath.Glob(filepath.Join(dir, split, "*.json")); len(m) == 0 {
			t.Errorf("no %s meetings shipped under qmsum/%s/", split, split)
		}
	}
}
