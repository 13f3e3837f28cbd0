package results

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

const killUnits = 300

// TestMain lets the test binary act as a writer process for the kill test
// and the full-disk test.
func TestMain(m *testing.M) {
	if dir := os.Getenv(fullDiskEnv); dir != "" {
		if err := fullDiskWriter(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv("MASCOT_RESULTS_KILL_WRITER"); path != "" {
		if err := killWriter(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// killWriter commits killUnits units (an episode with two turns and a
// judgment each), skipping those already done, as a resumed run would.
func killWriter(path string) error {
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.GetRun(ctx, "r"); err != nil {
		if err := s.CreateRun(ctx, Run{ID: "r"}); err != nil {
			return err
		}
	}
	fps := make([]string, killUnits)
	for i := range fps {
		fps[i] = fmt.Sprintf("unit-%03d", i)
	}
	done, err := s.DoneUnits(ctx, fps)
	if err != nil {
		return err
	}
	for i, fp := range fps {
		if done[fp] {
			continue
		}
		if i%2 == 0 { // units take time; half of the kills land in a sleep, half in SQLite
			time.Sleep(3 * time.Millisecond)
		}
		err := s.CommitUnit(ctx, Unit{Fingerprint: fp, Kind: "episodes", StageKey: "g", RunID: "r"}, func(tx *Tx) error {
			id, err := tx.InsertEpisode(sampleEpisode(fp))
			if err != nil {
				return err
			}
			_, err = tx.InsertJudgment(Judgment{Judge: "j", Criterion: "c", Score: 3, EpisodeID: id})
			return err
		})
		if err != nil {
			return err
		}
		fmt.Println("committed", fp) // the test kills after reading some of these
	}
	return nil
}

// TestKillDuringCommits SIGKILLs a writer process at random moments, then
// lets a last one finish, and checks the database holds every unit's rows
// exactly once and nothing else.
func TestKillDuringCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kill.db")
	rng := rand.New(rand.NewPCG(7, 7))
	// Ten kills that land mid-run: each after the writer reported 1–15 more
	// commits (so it made progress whatever the machine's load, and cannot
	// have finished), a few milliseconds later, so it dies inside its next
	// commit or its sleep. Timing kills from outside instead (a delay grown
	// while kills landed early) let a loaded machine's writer finish first.
	var progress []int
	prev := 0
	for kill := 0; kill < 10; kill++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MASCOT_RESULTS_KILL_WRITER="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		for n := 1 + rng.IntN(15); n > 0; n-- {
			if !lines.Scan() {
				t.Fatalf("writer stopped reporting commits after kill %d: %v", kill, lines.Err())
			}
		}
		time.Sleep(time.Duration(rng.IntN(4)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		go io.Copy(io.Discard, out) // drain what it wrote before it died
		cmd.Wait()
		done := doneSoFar(t, path)
		progress = append(progress, done)
		if done <= prev || done >= killUnits {
			t.Fatalf("kill %d did not land mid-run: units done after each kill %v", kill+1, progress)
		}
		prev = done
	}
	final := exec.Command(os.Args[0], "-test.run=^$")
	final.Env = append(os.Environ(), "MASCOT_RESULTS_KILL_WRITER="+path)
	final.Stderr = os.Stderr
	if err := final.Run(); err != nil {
		t.Fatalf("final writer: %v", err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok string
	s.Reader().QueryRow(`PRAGMA integrity_check`).Scan(&ok)
	if ok != "ok" {
		t.Fatalf("integrity_check: %s", ok)
	}
	checks := map[string]int{
		`SELECT COUNT(*) FROM units WHERE state = 'done'`:                                                   killUnits,
		`SELECT COUNT(*) FROM episodes`:                                                                     killUnits,
		`SELECT COUNT(DISTINCT unit_fp) FROM episodes`:                                                      killUnits,
		`SELECT COUNT(*) FROM turns`:                                                                        2 * killUnits,
		`SELECT COUNT(*) FROM judgments`:                                                                    killUnits,
		`SELECT COUNT(*) FROM run_units WHERE run_id = 'r'`:                                                 killUnits,
		`SELECT COUNT(*) FROM turns WHERE episode_id NOT IN (SELECT id FROM episodes)`:                      0,
		`SELECT COUNT(*) FROM judgments WHERE episode_id NOT IN (SELECT id FROM episodes)`:                  0,
		`SELECT COUNT(*) FROM episodes e JOIN units u ON u.fingerprint = e.unit_fp WHERE u.state <> 'done'`: 0,
	}
	for q, want := range checks {
		if got := count(t, s, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	t.Logf("units done after each kill: %v", progress)
}

func doneSoFar(t *testing.T, path string) int {
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return count(t, s, `SELECT COUNT(*) FROM units WHERE state = 'done'`)
}
