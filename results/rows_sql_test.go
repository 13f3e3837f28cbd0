package results

import (
	"strings"
	"testing"
)

// A cached statement text is the one built afresh, for every row count.
func TestRowsSQLText(t *testing.T) {
	r := rowsSQL{head: "INSERT INTO t (a, b) VALUES ", row: "(?, ?)", tail: " ON CONFLICT DO NOTHING"}
	for _, n := range []int{1, 2, 4, maxCachedRows, maxCachedRows + 1, 500} {
		want := r.head + strings.Repeat(r.row+",", n-1) + r.row + r.tail
		for range 2 { // built, then read back (or built again past the cache)
			if got := r.text(n); got != want {
				t.Fatalf("text(%d) = %q, want %q", n, got, want)
			}
		}
	}
}
