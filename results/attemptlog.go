package results

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The attempts journal of a run is a file next to the database,
// <db>-attempts-<run id>: one line per HTTP attempt, appended before the
// attempt is sent (migration 0015). An append returns once the operating
// system holds the line, which a killed process does not lose (the same
// durability as the database's own WAL commits at synchronous=NORMAL), so
// an attempt is recorded before the server can see it without the request
// waiting for a SQLite transaction. The attempt is counted when its
// outcome is stored (settle); the lines of a dead run that were never
// settled are its attempts lost in flight (SettleLost).
const attemptLogInfix = "-attempts-"

// AttemptLog appends a run's attempts to its journal file. It is safe for
// concurrent use.
type AttemptLog struct {
	s     *Store
	runID string
	path  string

	mu  sync.Mutex
	f   *os.File // opened by the first Record
	err error
}

// AttemptLog returns the journal of run runID's attempts (the file is
// created by the first Record).
func (s *Store) AttemptLog(runID string) *AttemptLog {
	return &AttemptLog{s: s, runID: runID, path: s.path + attemptLogInfix + runID}
}

// Path is the journal file's path.
func (l *AttemptLog) Path() string { return l.path }

// Record appends attempt a to the journal and returns once the operating
// system holds it: the caller may send the attempt then.
func (l *AttemptLog) Record(a Attempt) error {
	l.mu.Lock()
	if l.f == nil && l.err == nil {
		l.f, l.err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	}
	f, err := l.f, l.err
	l.mu.Unlock()
	if err != nil {
		return fmt.Errorf("opening the attempts journal: %w", err)
	}
	var buf [256]byte
	if _, err := f.Write(appendAttempt(buf[:0], a)); err != nil {
		return fmt.Errorf("recording LLM attempt %s: %w", a.ID, err)
	}
	return nil
}

// Finish ends a run's journal once every attempt it holds is settled: it
// removes the file, then the run's llm_settled rows (in that order: rows
// left by a crash in between are dropped by the next SettleLost, while a
// file left without its rows would count its attempts again).
func (l *AttemptLog) Finish(ctx context.Context) error {
	l.mu.Lock()
	if l.f != nil {
		_ = l.f.Close()
	}
	l.f, l.err = nil, errors.New("the attempts journal is finished")
	l.mu.Unlock()
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the attempts journal: %w", err)
	}
	return l.s.dropSettled(ctx, l.runID)
}

// appendAttempt formats one journal line: sequence number, attempt number,
// send time (unix ms), then the stage, role and cache key quoted.
func appendAttempt(b []byte, a Attempt) []byte {
	b = strconv.AppendInt(b, a.Seq, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(a.N), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, nowMS(), 10)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, a.StageKey)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, a.Role)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, a.Key)
	return append(b, '\n')
}

// journaled is an attempt read back from a journal, with its send time.
type journaled struct {
	Attempt
	sentMS int64
}

// readAttemptLog reads a journal. A line that does not parse (the last
// one, torn by a kill during its write, whose attempt was then never sent)
// is skipped.
func readAttemptLog(path, runID string) ([]journaled, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []journaled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 6 {
			continue
		}
		seq, err1 := strconv.ParseInt(p[0], 10, 64)
		n, err2 := strconv.Atoi(p[1])
		ms, err3 := strconv.ParseInt(p[2], 10, 64)
		stage, err4 := strconv.Unquote(p[3])
		role, err5 := strconv.Unquote(p[4])
		key, err6 := strconv.Unquote(p[5])
		if errors.Join(err1, err2, err3, err4, err5, err6) != nil {
			continue
		}
		out = append(out, journaled{Attempt: Attempt{ID: AttemptID(runID, seq), Seq: seq, RunID: runID,
			StageKey: stage, Role: role, Key: key, N: n}, sentMS: ms})
	}
	return out, sc.Err()
}

// attemptLogs lists the journal files next to the database, by run id.
func (s *Store) attemptLogs() (map[string]string, error) {
	dir, base := filepath.Split(s.path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing attempts journals: %w", err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if run, ok := strings.CutPrefix(e.Name(), base+attemptLogInfix); ok && run != "" && e.Type().IsRegular() {
			out[run] = filepath.Join(dir, e.Name())
		}
	}
	return out, nil
}

// settleLogs settles the journals of runs that are no longer live: their
// attempts never settled were in flight when the process died. They are
// inserted into llm_attempts as lost and counted in their run (attempts
// and lost_in_flight), in one transaction per run that counts only rows
// it inserted, so a journal read twice (a crash before its removal) adds
// nothing. It returns how many attempts it found lost.
func (s *Store) settleLogs(ctx context.Context, dead func(runID string) bool) (int, error) {
	logs, err := s.attemptLogs()
	if err != nil {
		return 0, err
	}
	total := 0
	for run, path := range logs {
		if !dead(run) {
			continue
		}
		n, err := s.settleLog(ctx, run, path)
		if err != nil {
			return total, err
		}
		total += n
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return total, fmt.Errorf("removing the attempts journal of run %s: %w", run, err)
		}
		if err := s.dropSettled(ctx, run); err != nil {
			return total, err
		}
	}
	return total, nil
}

func (s *Store) settleLog(ctx context.Context, run, path string) (int, error) {
	n := 0
	err := s.writeGroupedSums(ctx, func(ctx context.Context, tx *sql.Tx, sm *sums) error {
		// Read under the write lock: a process settling the same journal
		// meanwhile removes it before dropping its llm_settled rows, so
		// the file, if still here, comes with them.
		entries, err := readAttemptLog(path, run)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the attempts journal: %w", err)
		}
		rows := make([][7]any, len(entries))
		for i, e := range entries {
			rows[i] = [7]any{e.ID, e.Seq, e.StageKey, e.Role, e.Key, e.N, e.sentMS}
		}
		arg, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("encoding lost attempts: %w", err)
		}
		res, err := tx.QueryContext(ctx, `INSERT INTO llm_attempts (id, run_id, stage_key, role, key, attempt, sent_at, lost)
			SELECT value->>0, ?1, value->>2, value->>3, value->>4, value->>5, value->>6, 1 FROM json_each(?2)
			WHERE NOT EXISTS (SELECT 1 FROM llm_settled st WHERE st.run_id = ?1 AND st.seq = value->>1)
			ON CONFLICT (id) DO NOTHING RETURNING stage_key, role`, run, string(arg))
		if err != nil {
			return fmt.Errorf("recording lost LLM attempts: %w", err)
		}
		counts := map[[2]string]int64{}
		for res.Next() {
			var stage, role string
			if err := res.Scan(&stage, &role); err != nil {
				res.Close()
				return fmt.Errorf("recording lost LLM attempts: %w", err)
			}
			counts[[2]string{stage, role}]++
			n++
		}
		res.Close()
		if err := res.Err(); err != nil {
			return fmt.Errorf("recording lost LLM attempts: %w", err)
		}
		if n == 0 || !runExists(ctx, tx, run) {
			return nil // a deleted run's attempts are lost too, with nowhere to count them
		}
		for k, c := range counts {
			sm.addCounters(run, k[0], map[string]int64{AttemptsCounter(k[1]): c, LostCounter(k[1]): c})
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("settling the attempts journal of run %s: %w", run, err)
	}
	return n, nil
}

// dropSettled forgets which attempts of run were settled, once its
// journal is gone.
func (s *Store) dropSettled(ctx context.Context, run string) error {
	return s.writeGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM llm_settled WHERE run_id = ?`, run); err != nil {
			return fmt.Errorf("dropping the settled attempts of run %s: %w", run, err)
		}
		return nil
	})
}
