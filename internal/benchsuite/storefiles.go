package benchsuite

import (
	"errors"
	"io"
	"os"
)

// copyFile copies a closed store's database file (its WAL is checkpointed
// into it when the store closes) and syncs the copy: its 80 MB are then
// written back before the stage starts, not by the kernel during the
// rounds that follow, on CPUs the measured sides share. The bytes go
// file to file (io.Copy: copy_file_range on Linux), not through the
// heap: read whole, the file left 80 MB of freed heap that the runtime
// returned to the kernel, or the stage's allocations touched anew, while
// the stage ran, a cost no run in a fresh process pays.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, in)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
