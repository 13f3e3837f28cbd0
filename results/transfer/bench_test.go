package transfer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"mascot.dev/mascot/internal/benchdb"
	"mascot.dev/mascot/results/transfer"
)

// BenchmarkExportImport100k measures `mascot export` of the benchmark
// pipeline run (its 100,000 evaluation episodes) and `mascot import` of
// the file into a new database. Run with -benchtime 1x.
func BenchmarkExportImport100k(b *testing.B) {
	ctx := context.Background()
	s := benchdb.Open(b, 100_000)
	dir := b.TempDir()
	var file string
	b.Run("export", func(b *testing.B) {
		defer benchdb.ReportCPU(b)()
		for i := 0; b.Loop(); i++ {
			// An export never overwrites: each iteration writes a fresh folder.
			res, err := transfer.Export(ctx, s, benchdb.RunID, filepath.Join(dir, strconv.Itoa(i)), transfer.ExportOptions{})
			if err != nil || res.Episodes != 100_000 {
				b.Fatal(res, err)
			}
			file = res.Path
		}
	})
	b.Run("import", func(b *testing.B) {
		defer benchdb.ReportCPU(b)()
		for i := 0; b.Loop(); i++ {
			res, err := transfer.ImportNew(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("import-%d.db", i)), file, "imported")
			if err != nil || res.Episodes != 100_000 {
				b.Fatal(res, err)
			}
		}
	})
}
