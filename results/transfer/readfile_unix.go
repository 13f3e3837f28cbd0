//go:build unix

package transfer

import (
	"os"

	"golang.org/x/sys/unix"
)

// readInput returns an imported file's bytes and what releases them. A
// regular file is mapped read-only: its pages are the file system's cache
// itself, where reading it into the heap cost a fresh zeroed page and a
// copy per 4 KiB. Nothing decoded from the bytes refers to them (the decoders
// copy what they keep), so release runs once the import is done. A file
// cut short while mapped stops the process (SIGBUS) instead of importing
// part of it.
func readInput(path string) (data []byte, release func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 || int64(int(st.Size())) != st.Size() {
		data, err := os.ReadFile(path) // a pipe, an empty file
		return data, func() error { return nil }, err
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		data, err := os.ReadFile(path)
		return data, func() error { return nil }, err
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, func() error { return unix.Munmap(data) }, nil
}
