//go:build !linux

package hugeheap

// Advise does nothing where the kernel is not Linux.
func Advise(n int) (int, error) { return 0, nil }
