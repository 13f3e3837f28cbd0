package hugemem

import "golang.org/x/sys/unix"

// advise asks for huge pages over b. A kernel built without transparent
// huge pages refuses (EINVAL); one with them set to "never" takes the
// advice and gives small pages all the same.
func advise(b []byte) error { return unix.Madvise(b, unix.MADV_HUGEPAGE) }
