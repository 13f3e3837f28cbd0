//go:build unix

package results

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists (a process
// we may not signal still exists).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
