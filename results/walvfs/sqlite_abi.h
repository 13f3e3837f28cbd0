// The parts of SQLite's C interface this package touches, declared here
// because no sqlite3.h can be counted on at build time (go-sqlite3 compiles
// its own copy of SQLite, whose header is not on any include path). The
// layouts are SQLite's stable VFS ABI (sqlite_vfs version 3,
// sqlite3_io_methods version 3); only pointers to them cross the boundary.
#ifndef MASCOT_SQLITE_ABI_H
#define MASCOT_SQLITE_ABI_H

typedef long long sq_i64;

struct sq_io_methods;

typedef struct sq_file {
	const struct sq_io_methods *methods;
} sq_file;

typedef struct sq_io_methods {
	int version;
	int (*close)(sq_file *);
	int (*read)(sq_file *, void *, int n, sq_i64 off);
	int (*write)(sq_file *, const void *, int n, sq_i64 off);
	int (*truncate)(sq_file *, sq_i64 size);
	int (*sync)(sq_file *, int flags);
	int (*file_size)(sq_file *, sq_i64 *size);
	int (*lock)(sq_file *, int);
	int (*unlock)(sq_file *, int);
	int (*check_reserved_lock)(sq_file *, int *out);
	int (*file_control)(sq_file *, int op, void *arg);
	int (*sector_size)(sq_file *);
	int (*device_characteristics)(sq_file *);
	int (*shm_map)(sq_file *, int page, int page_size, int extend, void volatile **);
	int (*shm_lock)(sq_file *, int offset, int n, int flags);
	void (*shm_barrier)(sq_file *);
	int (*shm_unmap)(sq_file *, int delete_flag);
	int (*fetch)(sq_file *, sq_i64 off, int n, void **out);
	int (*unfetch)(sq_file *, sq_i64 off, void *p);
} sq_io_methods;

typedef struct sq_vfs sq_vfs;
struct sq_vfs {
	int version;
	int file_size; /* szOsFile: bytes SQLite allocates per open file */
	int max_pathname;
	sq_vfs *next;
	const char *name;
	void *app_data;
	int (*open)(sq_vfs *, const char *name, sq_file *, int flags, int *out_flags);
	int (*delete_)(sq_vfs *, const char *name, int sync_dir);
	int (*access)(sq_vfs *, const char *name, int flags, int *out);
	int (*full_pathname)(sq_vfs *, const char *name, int n, char *out);
	void *(*dl_open)(sq_vfs *, const char *name);
	void (*dl_error)(sq_vfs *, int n, char *msg);
	void (*(*dl_sym)(sq_vfs *, void *, const char *sym))(void);
	void (*dl_close)(sq_vfs *, void *);
	int (*randomness)(sq_vfs *, int n, char *out);
	int (*sleep)(sq_vfs *, int micros);
	int (*current_time)(sq_vfs *, double *);
	int (*get_last_error)(sq_vfs *, int, char *);
	int (*current_time_int64)(sq_vfs *, sq_i64 *);
	int (*set_system_call)(sq_vfs *, const char *, void (*)(void));
	void (*(*get_system_call)(sq_vfs *, const char *))(void);
	const char *(*next_system_call)(sq_vfs *, const char *);
};

#define SQ_OK 0
#define SQ_NOMEM 7
#define SQ_OPEN_WAL 0x00080000

#endif
