package results

import (
	"strings"
	"sync"
)

// rowsSQL is a multi-row statement: head, n copies of row joined by
// commas, then tail. Writers send the same few row counts over and over
// (the K candidates of a unit), so the text of each count up to
// maxCachedRows is built once.
type rowsSQL struct {
	head, row, tail string
	texts           sync.Map // row count -> statement
}

const maxCachedRows = 64

func (r *rowsSQL) text(n int) string {
	if v, ok := r.texts.Load(n); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(r.head) + n*(len(r.row)+1) + len(r.tail))
	b.WriteString(r.head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.row)
	}
	b.WriteString(r.tail)
	s := b.String()
	if n <= maxCachedRows {
		r.texts.Store(n, s)
	}
	return s
}
