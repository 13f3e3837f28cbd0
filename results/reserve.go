package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ReserveBytes is the disk space a running run keeps beside its database:
// enough for SQLite to move a full WAL (its automatic checkpoint runs at
// 1000 pages, 4 MiB) into the database and record the run's end when the
// disk has filled.
const ReserveBytes = 4 << 20

// reserve is a file of ReserveBytes beside the database, held while runs
// of this process are running: a full disk then still has room for their
// end to be recorded (FinishRun frees it).
type reserve struct {
	mu   sync.Mutex
	refs int
	path string // "" when none is held (or it was freed)
}

// Reserve keeps ReserveBytes of disk beside the database until the
// returned function is called (by every run that called Reserve; one file
// serves them all). A disk too full for it leaves the run without one.
// Files left by processes that died are removed.
func (s *Store) Reserve() (release func()) {
	r := &s.reserve
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs++
	if r.refs == 1 {
		removeStaleReserves(s.path)
		p := fmt.Sprintf("%s-reserve-%d", s.path, os.Getpid())
		if err := fill(p, ReserveBytes); err == nil {
			r.path = p
		} else {
			os.Remove(p)
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.refs--; r.refs == 0 {
				r.freeLocked()
			}
		})
	}
}

// free gives the reserved space back to the disk.
func (r *reserve) free() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.freeLocked()
}

func (r *reserve) freeLocked() {
	if r.path != "" {
		os.Remove(r.path)
		r.path = ""
	}
}

// fill writes n bytes to a new file at p (written, not sparse: the blocks
// must be the disk's).
func fill(p string, n int64) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for left := n; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), left)]); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeStaleReserves removes the reserve files of processes that are
// gone.
func removeStaleReserves(db string) {
	files, _ := filepath.Glob(db + "-reserve-*")
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimPrefix(f, db+"-reserve-"))
		if err == nil && pid != os.Getpid() && !processAlive(pid) {
			os.Remove(f)
		}
	}
}
