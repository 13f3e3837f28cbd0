package results

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// fullDiskEnv makes the test binary the writer of TestRunEndIsRecordedOnAFullDisk,
// run inside a small file system of its own.
const fullDiskEnv = "MASCOT_RESULTS_FULLDISK_DIR"

// canMountTmpfs reports whether `unshare -rm` can mount a tmpfs (user and
// mount namespaces).
func canMountTmpfs(dir string) bool {
	if _, err := exec.LookPath("unshare"); err != nil {
		return false
	}
	return exec.Command("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs "+dir).Run() == nil
}

// TestRunEndIsRecordedOnAFullDisk: a run's database lives on a 16 MiB
// file system that fills while the run writes (a ballast file takes every
// free block once the run holds its reserve, with a megabyte of the run's
// rows still in the WAL). The run's writes then fail for want of space, as
// on a full disk, yet FinishRun records it as failed: the run does not
// read as running (or interrupted).
func TestRunEndIsRecordedOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	testgate.Need(t, canMountTmpfs(dir), "unshare -rm (user and mount namespaces) is needed to mount a small file system")
	cmd := exec.Command("unshare", "-rm", "sh", "-c", `mount -t tmpfs -o size=16m tmpfs "$0" && exec "$1" -test.run='^$'`, dir, os.Args[0])
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("writer on a full disk: %v\n%s", err, out)
	}
	for _, want := range []string{"writes failed for want of space: true", "status read back: failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("writer did not say %q:\n%s", want, out)
		}
	}
}

// fullDiskWriter runs in the small file system at dir: it starts a run,
// takes the reserve, fills the disk, writes until SQLite fails for want of
// space, finishes the run as failed and reads its status back.
func fullDiskWriter(dir string) error {
	ctx := context.Background()
	path := filepath.Join(dir, "m.db")
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.CreateRun(ctx, Run{ID: "r", Name: "full", Status: RunRunning}); err != nil {
		return err
	}
	release := s.Reserve()
	defer release()
	// Rows committed to the WAL and not yet moved into the database:
	// recording the run's end must first make the database file grow.
	big := strings.Repeat("x", 32<<10)
	for range 30 {
		if err := s.PutLLMCall(ctx, LLMCall{RunID: "r", Role: "r", ModelID: "m", Error: big}); err != nil {
			return fmt.Errorf("writing before the disk fills: %w", err)
		}
	}
	if _, err := os.Stat(fmt.Sprintf("%s-reserve-%d", path, os.Getpid())); err != nil {
		return fmt.Errorf("no reserve file: %w", err)
	}
	ballast, err := os.Create(filepath.Join(dir, "ballast"))
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := ballast.Write(buf); err != nil {
			break // the disk is full
		}
	}
	ballast.Close()
	full := false
	for i := 0; i < 1000 && !full; i++ {
		err := s.PutLLMCall(ctx, LLMCall{RunID: "r", Role: "r", ModelID: "m", Error: big})
		full = err != nil && isFull(err)
		if err != nil && !full {
			return fmt.Errorf("write %d failed otherwise: %w", i, err)
		}
	}
	fmt.Printf("writes failed for want of space: %v\n", full)
	if err := s.FinishRun(ctx, "r", RunFailed, `{"status":"failed"}`); err != nil {
		return fmt.Errorf("finishing the run: %w", err)
	}
	r, err := s.GetRun(ctx, "r")
	if err != nil {
		return err
	}
	fmt.Printf("status read back: %s\n", r.Status)
	if r.Status != RunFailed {
		return errors.New("the run's end was not recorded")
	}
	return nil
}
