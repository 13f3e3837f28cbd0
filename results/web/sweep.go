package web

import (
	"html/template"
	"net/http"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// sweepData is a sweep parent with one chart per axis.
type sweepData struct {
	Run    results.Run
	Points []report.SweepPoint
	Charts []template.HTML
}

// sweepPage is GET /runs/{id}/sweep: for each axis of the sweep, the
// children's Overall (per-agent and collective, N-weighted over systems and
// splits, with the CI of a child's one system) against the axis value; of
// a racing search's rounds, each variant's last.
func (s *server) sweepPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	d, err := s.st.GetRunDetail(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	if len(d.Children) == 0 {
		return notFound("run %s is not a sweep (it has no children)", d.Run.ID)
	}
	sd := sweepData{Run: d.Run}
	if sd.Points, err = report.SweepPoints(ctx, s.st, d.Run.ID, report.Options{Resamples: s.opts.Resample}); err != nil {
		return err
	}
	figs, err := report.SweepFigures(sd.Points, d.Run.Name)
	if err != nil {
		return err
	}
	for _, f := range figs {
		sd.Charts = append(sd.Charts, f.HTML())
	}
	return s.render(w, "sweep", page{Title: "Sweep " + d.Run.Name, Data: sd})
}
