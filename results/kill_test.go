package results

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

const killUnits = 300

// TestMain lets the test binary act as a writer process for the kill test.
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
	}
	return nil
}

// TestKillDuringCommits SIGKILLs a writer process at random moments, then
// lets a last one finish, and checks the database holds every unit's rows
// exactly once and nothing else.
func TestKillDuringCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kill.db")
	rng := rand.New(rand.NewPCG(7, 7))
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MASCOT_RESULTS_KILL_WRITER="+path)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// Kill until 10 kills landed mid-run (the writer had made progress and
	// had not finished); the delay grows while kills land too early and
	// shrinks while a writer gets through much of the work in one life.
	var progress []int
	midKills, delay, prev := 0, 15, 0
	for attempt := 0; midKills < 10 && attempt < 80; attempt++ {
		cmd := start()
		time.Sleep(time.Duration(delay+rng.IntN(40)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		done := doneSoFar(t, path)
		progress = append(progress, done)
		switch {
		case done == killUnits:
			t.Fatalf("the writer finished before 10 kills landed mid-run: %v", progress)
		case done > prev:
			midKills++
			if done-prev > killUnits/20 {
				// Too much progress per life: the writer would finish
				// before ten kills landed. Kill sooner.
				delay = max(5, delay/2)
			}
		default:
			delay += 20
		}
		prev = done
	}
	if midKills < 10 {
		t.Fatalf("only %d kills landed mid-run: %v", midKills, progress)
	}
	if err := start().Wait(); err != nil {
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
