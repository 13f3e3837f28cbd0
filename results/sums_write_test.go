package results

import "testing"

// The sums' hand-written JSON carries every name and number as stored:
// quotes, backslashes, HTML characters, line separators and non-ASCII in
// the strings, negative and large values.
func TestSumsWriteRoundTrips(t *testing.T) {
	s := openTemp(t)
	mustRun(t, s, `r"1`)
	names := []string{`llm.speaker.attempts`, `a"b\c`, "<&>\u2028é\t", ""}
	var sm sums
	sm.addCounters(`r"1`, "st\n", map[string]int64{names[0]: 7, names[1]: -3, names[2]: 1 << 40, names[3]: 0})
	sm.addLatency(`r"1`, "st\n", []LatencyBucket{{Role: names[2], LE: 1500, Count: 4}, {Role: names[1], LE: 1 << 30, Count: 1}})
	tx, err := s.w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := sm.write(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for name, v := range sm.counters {
		if n := count(t, s, `SELECT COUNT(*) FROM counters WHERE run_id = ? AND stage_key = ? AND name = ? AND value = ?`,
			name.run, name.stage, name.name, v); n != 1 {
			t.Errorf("counter %+v = %d: %d rows", name, v, n)
		}
	}
	for k, v := range sm.latency {
		if n := count(t, s, `SELECT COUNT(*) FROM llm_latency WHERE run_id = ? AND stage_key = ? AND role = ? AND le_us = ? AND n = ?`,
			k.run, k.stage, k.role, k.le, v); n != 1 {
			t.Errorf("latency %+v = %d: %d rows", k, v, n)
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM counters`); n != len(sm.counters) {
		t.Errorf("%d counter rows, want %d", n, len(sm.counters))
	}
}
