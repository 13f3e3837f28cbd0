// A VFS that differs from SQLite's default in one thing: writes to a
// write-ahead log that continue the previous write are gathered and reach
// the file in one write once the commit frame is complete, or earlier when
// anything else touches the log. SQLite writes each frame as a 24-byte
// header and a page, two system calls per frame; a unit group's commit
// writes hundreds of frames.
//
// Why it is safe: other connections see a frame only once the wal-index
// (shared memory) says it exists, and SQLite updates the wal-index after
// the last write of the commit, the commit frame's page. The commit frame
// is always appended (SQLite never overwrites it in place), so it ends a
// gathered run and the run is written before that page's write returns.
// Writes that do not continue the last one (the log's header after a
// restart, pages overwritten in place, checksum rewrites) are written at
// once, after what is pending. Reads, syncs, truncation, size queries and
// file controls first write what is pending, so this connection always
// reads what it wrote.
#include <stdlib.h>
#include <string.h>
#include "sqlite_abi.h"

// Weak: cgo links this package alone to check it; the program binds them
// to the SQLite go-sqlite3 compiles in.
extern sq_vfs *sqlite3_vfs_find(const char *) __attribute__((weak));
extern int sqlite3_vfs_register(sq_vfs *, int) __attribute__((weak));

enum {
	frame_header = 24,       // a WAL frame's header
	gather_max = 4 << 20,    // bytes held before writing anyway
	// The default VFS writes at most 128 KiB - 1 bytes a call (it never
	// needs more: pages are at most 64 KiB), so what is gathered goes out
	// in pieces of 64 KiB: 15 frames of 4 KiB pages a system call.
	write_max = 64 << 10,
};

typedef struct wal_file {
	sq_file file;
	sq_file *real;           // the default VFS's file, after this struct
	char *buf;               // pending bytes, for [buf_off, buf_off+buf_len)
	int buf_len, buf_cap;
	sq_i64 buf_off;
	sq_i64 next_off;         // where the last write through this handle ended
	int after_commit_header; // the last write was a commit frame's header
} wal_file;

// Counts for tests: writes SQLite asked of log files, and writes made.
static long long writes_asked, writes_made;

static int write_real(wal_file *f, const void *p, int n, sq_i64 off) {
	__atomic_add_fetch(&writes_made, 1, __ATOMIC_RELAXED);
	return f->real->methods->write(f->real, p, n, off);
}

void mascot_walvfs_counts(long long *asked, long long *made) {
	*asked = __atomic_load_n(&writes_asked, __ATOMIC_RELAXED);
	*made = __atomic_load_n(&writes_made, __ATOMIC_RELAXED);
}

static sq_vfs *base;
static sq_vfs wal_vfs;
static const sq_io_methods wal_methods;

// flush writes what is pending, in pieces of at most write_max bytes.
static int flush(wal_file *f) {
	int n = f->buf_len;
	f->buf_len = 0;
	for (int done = 0; done < n; done += write_max) {
		int m = n - done < write_max ? n - done : write_max;
		int rc = write_real(f, f->buf + done, m, f->buf_off + done);
		if (rc != SQ_OK) return rc;
	}
	return SQ_OK;
}

static int gather(wal_file *f, const void *p, int n) {
	if (f->buf_len + n > f->buf_cap) {
		int cap = f->buf_cap ? f->buf_cap : 64 << 10;
		while (cap < f->buf_len + n) cap *= 2;
		char *b = realloc(f->buf, cap);
		if (!b) return SQ_NOMEM;
		f->buf = b;
		f->buf_cap = cap;
	}
	memcpy(f->buf + f->buf_len, p, n);
	f->buf_len += n;
	return SQ_OK;
}

// is_commit_header says whether a 24-byte write is a commit frame's header:
// bytes 4..7 hold the database size after the commit, 0 in other frames.
static int is_commit_header(const unsigned char *p, int n) {
	return n == frame_header && (p[4] | p[5] | p[6] | p[7]) != 0;
}

static int wal_write(sq_file *pf, const void *p, int n, sq_i64 off) {
	wal_file *f = (wal_file *)pf;
	int rc;
	__atomic_add_fetch(&writes_asked, 1, __ATOMIC_RELAXED);
	int ends_commit = f->after_commit_header; // this is the commit frame's page
	f->after_commit_header = is_commit_header(p, n);
	int continues = f->buf_len > 0 && off == f->buf_off + f->buf_len && f->buf_len + n <= gather_max;
	if (!continues) {
		if ((rc = flush(f)) != SQ_OK) return rc;
		if (off == 0 || off != f->next_off || n > write_max || ends_commit) {
			f->next_off = off + n;
			return write_real(f, p, n, off);
		}
		f->buf_off = off;
	}
	f->next_off = off + n;
	if (gather(f, p, n) != SQ_OK) { // out of memory: write what is pending, then this
		if ((rc = flush(f)) != SQ_OK) return rc;
		return write_real(f, p, n, off);
	}
	return ends_commit ? flush(f) : SQ_OK;
}

static int wal_close(sq_file *pf) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	int rc2 = f->real->methods->close(f->real);
	free(f->buf);
	f->buf = 0;
	return rc != SQ_OK ? rc : rc2;
}

static int wal_read(sq_file *pf, void *p, int n, sq_i64 off) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	return rc != SQ_OK ? rc : f->real->methods->read(f->real, p, n, off);
}

static int wal_truncate(sq_file *pf, sq_i64 size) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	return rc != SQ_OK ? rc : f->real->methods->truncate(f->real, size);
}

static int wal_sync(sq_file *pf, int flags) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	return rc != SQ_OK ? rc : f->real->methods->sync(f->real, flags);
}

static int wal_file_size(sq_file *pf, sq_i64 *size) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	return rc != SQ_OK ? rc : f->real->methods->file_size(f->real, size);
}

static int wal_file_control(sq_file *pf, int op, void *arg) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	return rc != SQ_OK ? rc : f->real->methods->file_control(f->real, op, arg);
}

static int wal_fetch(sq_file *pf, sq_i64 off, int n, void **out) {
	wal_file *f = (wal_file *)pf;
	int rc = flush(f);
	if (rc != SQ_OK) return rc;
	if (f->real->methods->version < 3) {
		*out = 0;
		return SQ_OK;
	}
	return f->real->methods->fetch(f->real, off, n, out);
}

// The rest pass through: they neither read nor write the log's bytes.
static int wal_lock(sq_file *pf, int l) { return ((wal_file *)pf)->real->methods->lock(((wal_file *)pf)->real, l); }
static int wal_unlock(sq_file *pf, int l) { return ((wal_file *)pf)->real->methods->unlock(((wal_file *)pf)->real, l); }
static int wal_check_reserved_lock(sq_file *pf, int *out) {
	return ((wal_file *)pf)->real->methods->check_reserved_lock(((wal_file *)pf)->real, out);
}
static int wal_sector_size(sq_file *pf) { return ((wal_file *)pf)->real->methods->sector_size(((wal_file *)pf)->real); }
static int wal_device_characteristics(sq_file *pf) {
	return ((wal_file *)pf)->real->methods->device_characteristics(((wal_file *)pf)->real);
}
static int wal_shm_map(sq_file *pf, int pg, int sz, int ext, void volatile **pp) {
	sq_file *r = ((wal_file *)pf)->real;
	return r->methods->shm_map(r, pg, sz, ext, pp);
}
static int wal_shm_lock(sq_file *pf, int off, int n, int flags) {
	sq_file *r = ((wal_file *)pf)->real;
	return r->methods->shm_lock(r, off, n, flags);
}
static void wal_shm_barrier(sq_file *pf) {
	sq_file *r = ((wal_file *)pf)->real;
	r->methods->shm_barrier(r);
}
static int wal_shm_unmap(sq_file *pf, int del) {
	sq_file *r = ((wal_file *)pf)->real;
	return r->methods->shm_unmap(r, del);
}
static int wal_unfetch(sq_file *pf, sq_i64 off, void *p) {
	sq_file *r = ((wal_file *)pf)->real;
	return r->methods->version < 3 ? SQ_OK : r->methods->unfetch(r, off, p);
}

static const sq_io_methods wal_methods = {
	3, wal_close, wal_read, wal_write, wal_truncate, wal_sync, wal_file_size,
	wal_lock, wal_unlock, wal_check_reserved_lock, wal_file_control,
	wal_sector_size, wal_device_characteristics,
	wal_shm_map, wal_shm_lock, wal_shm_barrier, wal_shm_unmap,
	wal_fetch, wal_unfetch,
};

static int wal_open(sq_vfs *vfs, const char *name, sq_file *pf, int flags, int *out_flags) {
	(void)vfs;
	if (!(flags & SQ_OPEN_WAL)) return base->open(base, name, pf, flags, out_flags);
	wal_file *f = (wal_file *)pf;
	memset(f, 0, sizeof *f);
	f->real = (sq_file *)(f + 1);
	int rc = base->open(base, name, f->real, flags, out_flags);
	// SQLite closes a file whose methods are set, even when opening failed.
	pf->methods = f->real->methods ? &wal_methods : 0;
	return rc;
}

// mascot_walvfs_register registers the VFS under name, built on the
// default VFS. It returns 0, -1 when SQLite is not linked in, or SQLite's
// error code.
int mascot_walvfs_register(const char *name) {
	if (!sqlite3_vfs_find || !sqlite3_vfs_register) return -1;
	sq_vfs *b = sqlite3_vfs_find(0);
	if (!b) return -1;
	base = b;
	wal_vfs = *b;
	if (wal_vfs.version > 3) wal_vfs.version = 3;
	wal_vfs.next = 0;
	wal_vfs.name = name;
	wal_vfs.file_size = (int)sizeof(wal_file) + b->file_size;
	wal_vfs.open = wal_open;
	return sqlite3_vfs_register(&wal_vfs, 0);
}
