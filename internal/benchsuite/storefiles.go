package benchsuite

import (
	"errors"
	"os"
)

// copyFile copies a closed store's database file (its WAL is checkpointed
// into it when the store closes) and syncs the copy: its 80 MB are then
// written back before the stage starts, not by the kernel during the
// rounds that follow, on CPUs the measured sides share. The file is read
// whole: the heap it takes is collected before either side is measured.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
