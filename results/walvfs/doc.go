// Package walvfs is a SQLite VFS that writes a commit's write-ahead-log
// frames in one system call instead of two per frame (see walvfs.c for
// why that is safe). The results store opens its databases through it.
//
// Layer: below results, beside go-sqlite3; it imports nothing of mascot.
package walvfs
