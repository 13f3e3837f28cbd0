package transfer

import (
	"bufio"
	"bytes"
	"context"

	"golang.org/x/sync/errgroup"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
)

// exportBatch is how many episodes the reader hands the encoder at a time.
const exportBatch = 256

// stagedEpisode is an episode with the stage key of the unit that
// generated it.
type stagedEpisode struct {
	e     *results.Episode
	stage string
}

// writeRecords writes the run's records (ForEachStagedEpisode's selection) to w,
// one line each, counting them in res. One goroutine reads the database
// while this one encodes and writes, so the two overlap on two cores.
func writeRecords(ctx context.Context, s *results.Store, runID string, training bool, w *bufio.Writer, res *ExportResult) error {
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []stagedEpisode, 4)
	g.Go(func() error {
		defer close(batches)
		batch := make([]stagedEpisode, 0, exportBatch)
		send := func() error {
			select {
			case batches <- batch:
				batch = make([]stagedEpisode, 0, exportBatch)
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		err := s.ForEachStagedEpisode(gctx, runID, training, func(e *results.Episode, stage string) error {
			batch = append(batch, stagedEpisode{e, stage})
			if len(batch) < exportBatch {
				return nil
			}
			return send()
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		return send()
	})
	g.Go(func() error {
		var line bytes.Buffer
		for batch := range batches {
			for _, r := range batch {
				labelRecord(r.e, r.stage)
				line.Reset()
				if err := jsonl.Append(&line, &r.e.Record); err != nil {
					return err
				}
				line.WriteByte('\n')
				if _, err := w.Write(line.Bytes()); err != nil {
					return err
				}
				res.Episodes++
				if results.IsTrainingMode(r.e.Mode) {
					res.Training++
				}
			}
		}
		return nil
	})
	return g.Wait()
}
