package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// importChunkLines is how many lines a decoder takes at a time.
const importChunkLines = 256

// importChunk is a run of consecutive lines and, once done is closed,
// their decoded episodes (nil for blank lines) or the first line's error.
type importChunk struct {
	first int // line number of lines[0], from 1
	lines [][]byte
	eps   []*results.Episode
	err   error
	done  chan struct{}
}

// importLines inserts the records of a JSONL file's bytes in file order
// through tx: decoders on GOMAXPROCS goroutines turn chunks of lines into
// episodes while this goroutine, the only one using the transaction,
// inserts the chunks in order. The first bad line stops the import with
// an error naming it; its transaction then rolls everything back.
func importLines(ctx context.Context, data []byte, tx *results.Tx) (int, error) {
	bulk, err := tx.BulkEpisodes()
	if err != nil {
		return 0, err
	}
	n, err := insertLines(ctx, data, bulk)
	if err != nil {
		return n, err
	}
	if err := bulk.Close(); err != nil {
		return n, fmt.Errorf("storing the records: %w", err)
	}
	return n, nil
}

// insertLines is importLines's insertion through bulk.
func insertLines(ctx context.Context, data []byte, bulk *results.Bulk) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *importChunk, workers)
	ordered := make(chan *importChunk, 2*workers)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(ordered)
		splitChunks(ctx, data, work, ordered)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				c.decode()
			}
		}()
	}
	n := 0
	for c := range ordered {
		select {
		case <-c.done:
		case <-ctx.Done():
			return n, ctx.Err()
		}
		for i, e := range c.eps {
			if e == nil {
				continue
			}
			if _, err := bulk.Insert(*e); err != nil {
				// Rows are written in batches: the failed one ends here.
				return n, fmt.Errorf("storing the records up to line %d: %w", c.first+i, err)
			}
			n++
		}
		if c.err != nil {
			return n, c.err
		}
	}
	return n, ctx.Err()
}

// splitChunks cuts data into chunks of lines and hands each to the
// decoders and, in the same order, to the inserter.
func splitChunks(ctx context.Context, data []byte, work, ordered chan<- *importChunk) {
	line := 1
	for len(data) > 0 {
		c := &importChunk{first: line, done: make(chan struct{})}
		for len(data) > 0 && len(c.lines) < importChunkLines {
			b := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				b, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			c.lines = append(c.lines, b)
			line++
		}
		for _, ch := range []chan<- *importChunk{ordered, work} {
			select {
			case ch <- c:
			case <-ctx.Done():
				return
			}
		}
	}
}

// decode turns the chunk's lines into episodes, stopping at the first
// bad line.
func (c *importChunk) decode() {
	defer close(c.done)
	c.eps = make([]*results.Episode, 0, len(c.lines))
	for i, b := range c.lines {
		e, err := importRecord(bytes.TrimSpace(b), c.first+i)
		if err != nil {
			c.err = err
			return
		}
		c.eps = append(c.eps, e)
	}
}

// importRecord decodes one line of an imported file (nil for a blank
// line): its position is the episode's index, its "mode" key (when set)
// its mode, and its valence and domain are derived.
func importRecord(b []byte, line int) (*results.Episode, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r, meta, err := jsonl.DecodeKeepingMetadata(b)
	if err != nil {
		return nil, fmt.Errorf("line %d: %w: %w", line, ErrBadRecord, err)
	}
	e := &results.Episode{Record: *r, System: r.Metadata.System, Dataset: r.Metadata.Dataset, MetadataJSON: meta}
	e.Idx, e.Mode = line, results.ModeImported
	if raw, ok := e.Extra[RecordModeKey]; ok {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil || m == "" {
			return nil, fmt.Errorf("line %d: %w: %q must be a non-empty string, not %s", line, ErrBadRecord,
				RecordModeKey, raw)
		}
		e.Mode = m // an exported record keeps its population
	}
	deriveSplit(e)
	return e, nil
}
