//go:build !unix

package transfer

import "os"

// readInput returns an imported file's bytes (readfile_unix.go maps them).
func readInput(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	return data, func() error { return nil }, err
}
