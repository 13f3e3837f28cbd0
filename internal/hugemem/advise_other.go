//go:build !linux

package hugemem

import "errors"

// advise does nothing where the kernel is not Linux.
func advise([]byte) error { return errors.ErrUnsupported }
