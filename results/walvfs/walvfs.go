package walvfs

// int mascot_walvfs_register(const char *name);
// void mascot_walvfs_counts(long long *asked, long long *made);
import "C"

import (
	"fmt"
	"sync"
)

// Name is the VFS's name, for a connection string's vfs parameter.
const Name = "mascot-wal"

var (
	once    sync.Once
	errOnce error
)

// Register registers the VFS with the SQLite that go-sqlite3 links in; it
// is safe to call more than once and from several goroutines. It must not
// run before that SQLite's configuration is done (registering initializes
// SQLite), which is why no init function calls it.
func Register() error {
	once.Do(func() {
		// SQLite keeps the name's pointer for the life of the process.
		if rc := C.mascot_walvfs_register(C.CString(Name)); rc != 0 {
			errOnce = fmt.Errorf("registering the %s SQLite VFS: code %d", Name, int(rc))
		}
	})
	return errOnce
}

// counts returns how many writes SQLite asked of log files opened through
// the VFS and how many write calls reached the default VFS, process-wide.
func counts() (asked, made int64) {
	var a, m C.longlong
	C.mascot_walvfs_counts(&a, &m)
	return int64(a), int64(m)
}
