package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/figures"
	"mascot.dev/mascot/results/report"
)

// reportWithPlots renders a report with its plots: as one HTML page, or
// in the format asked with the SVG files written to dir. The plots are the
// report's criteria bars, a forest plot of each later run against the
// first, each sweep parent's Overall against its axes, and the runs'
// training curves; the sweeps' notes (sweepNotes) follow.
func reportWithPlots(c *cobra.Command, s *results.Store, rep *report.Report, ids []string, format, dir string, notes []report.Note) error {
	ctx := c.Context()
	var cmps []*report.Comparison
	for _, id := range ids[1:] {
		cmp, err := report.Compare(ctx, s, ids[0], id, rep.Options)
		if err != nil { // runs that cannot be paired still get their tables
			fmt.Fprintf(c.ErrOrStderr(), "mascot: no forest plot of %s against %s: %v\n", id, ids[0], err)
			continue
		}
		cmps = append(cmps, cmp)
	}
	var extra []figures.Figure
	seen := map[string]bool{} // runs sharing a training unit share its curves
	for _, id := range ids {
		run, err := s.GetRun(ctx, id)
		if err != nil {
			return err
		}
		pts, err := report.SweepPoints(ctx, s, id, rep.Options)
		if err != nil {
			return err
		}
		if len(pts) > 0 {
			fs, err := report.SweepFigures(pts, run.Name)
			if err != nil {
				return err
			}
			extra = append(extra, fs...)
		}
		curves, err := s.TrainingCurves(ctx, id)
		if err != nil {
			return err
		}
		for _, cv := range curves {
			if seen[cv.UnitFP] {
				continue
			}
			seen[cv.UnitFP] = true
			fs, err := report.TrainingFigures(cv)
			if err != nil {
				return err
			}
			extra = append(extra, fs...)
		}
	}
	if dir != "" {
		all, err := report.Figures(rep)
		if err != nil {
			return err
		}
		for _, cmp := range cmps {
			fs, err := report.ComparisonFigures(cmp)
			if err != nil {
				return err
			}
			all = append(all, fs...)
		}
		all = append(all, extra...)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating plot directory: %w", err)
		}
		for _, f := range all {
			svg := append([]byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"), f.SVG...)
			if err := os.WriteFile(filepath.Join(dir, f.ID+".svg"), append(svg, '\n'), 0o644); err != nil {
				return fmt.Errorf("writing plot: %w", err)
			}
		}
		fmt.Fprintf(c.ErrOrStderr(), "wrote %d plots to %s\n", len(all), dir)
	}
	if format == report.FormatHTML {
		return report.RenderHTML(c.OutOrStdout(), report.HTMLPage{Report: rep, Comparisons: cmps, Figures: extra, Notes: notes})
	}
	if err := report.Render(c.OutOrStdout(), rep, format); err != nil {
		return err
	}
	return printNotes(c.OutOrStdout(), format, notes)
}
