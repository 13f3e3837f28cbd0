package benchdb

import (
	"testing"

	"mascot.dev/mascot/results"
)

// Open opens (building it first if needed) the database with n evaluation
// episodes for a benchmark; it is closed when the benchmark ends.
func Open(tb testing.TB, n int) *results.Store {
	tb.Helper()
	path, err := Path(n)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := results.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
