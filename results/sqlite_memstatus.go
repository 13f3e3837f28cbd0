package results

/*
// SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS, on by default) take
// a process-wide mutex around every allocation and free it makes; mascot
// reads none of them. The symbols are weak so that cgo's link check of
// this package alone accepts them; the program's link binds them to the
// SQLite that go-sqlite3 compiles in.
extern int sqlite3_config(int, ...) __attribute__((weak));
extern long long sqlite3_memory_used(void) __attribute__((weak));

static int mascot_memstatus_off(void) {
	if (!sqlite3_config) return -1;
	return sqlite3_config(9, 0); // SQLITE_CONFIG_MEMSTATUS, off
}

static long long mascot_memory_used(void) {
	if (!sqlite3_memory_used) return -1;
	return sqlite3_memory_used();
}
*/
import "C"

// memstatusErr is sqlite3_config's answer when turning the statistics off
// (0: off). It runs before SQLite initializes, at the package's
// initialization (go-sqlite3 only registers its driver before); what the
// mutex cost is in docs/benchmarks.md, "branch store100k".
var memstatusErr = int(C.mascot_memstatus_off())

// sqliteMemoryUsed is SQLite's count of the bytes it holds: 0 while the
// statistics are off.
func sqliteMemoryUsed() int64 { return int64(C.mascot_memory_used()) }
