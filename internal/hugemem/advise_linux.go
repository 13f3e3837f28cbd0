package hugemem

import "golang.org/x/sys/unix"

// advise asks for huge pages over b; a kernel without transparent huge
// pages (or with them off) refuses, and b stays in small pages.
func advise(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
