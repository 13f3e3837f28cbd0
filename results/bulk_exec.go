package results

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
)

// bulkExec runs one multi-row INSERT of a bulk load with args through the
// driver's connection, inside the unit's transaction (the same
// connection): database/sql would copy the statement's hundreds of values
// into a fresh slice of driver.NamedValue and check each one; here one
// slice is reused for every statement and the values, which are already
// the driver's own types (nil, int64, string), go in as they are. The
// driver keeps the statement prepared in its cache, as for database/sql.
func (b *Bulk) bulkExec(query string, args []any) error {
	c := b.tx.s.wc
	if c == nil {
		return errors.New("bulk insertion outside a write transaction")
	}
	nv := b.named[:0]
	for i, v := range args {
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	b.named = nv
	defer clear(nv) // keep no references to the rows' strings
	return c.Raw(func(dc any) error {
		ex, ok := dc.(driver.ExecerContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot execute statements", dc)
		}
		// The transaction's own context still governs it: a cancelled
		// import stops at the next statement. Background here spares the
		// driver its per-statement goroutine that watches for cancellation.
		if err := b.tx.ctx.Err(); err != nil {
			return err
		}
		_, err := ex.ExecContext(context.Background(), query, nv)
		return err
	})
}
