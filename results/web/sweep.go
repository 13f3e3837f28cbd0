package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"sort"
	"strconv"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// sweepData is a sweep parent with one chart per axis.
type sweepData struct {
	Run    results.Run
	Points []sweepPoint
	Charts []template.HTML
}

// sweepPoint is one child run's axis values and overall scores.
type sweepPoint struct {
	Run   results.Run
	Axes  map[string]string
	Score map[string]float64 // level → N-weighted mean of Overall
}

// sweepPage is GET /runs/{id}/sweep: for each axis of the sweep, the
// children's Overall (per-agent and collective, N-weighted over systems and
// splits) against the axis value.
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
	axes := map[string]bool{}
	for _, c := range d.Children {
		rep, err := report.Build(ctx, s.st, []string{c.ID}, report.Options{Resamples: -1})
		if err != nil {
			return err
		}
		p := sweepPoint{Run: c, Axes: axisValues(c.AxesJSON), Score: overallByLevel(rep)}
		for k := range p.Axes {
			axes[k] = true
		}
		sd.Points = append(sd.Points, p)
	}
	names := make([]string, 0, len(axes))
	for k := range axes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, ax := range names {
		sd.Charts = append(sd.Charts, axisChart(ax, sd.Points))
	}
	return s.render(w, "sweep", page{Title: "Sweep " + d.Run.Name, Data: sd})
}

// axisValues flattens a child's axes JSON to strings.
func axisValues(raw json.RawMessage) map[string]string {
	var m map[string]any
	out := map[string]string{}
	if json.Unmarshal(raw, &m) != nil {
		return out
	}
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		default:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}

// overallByLevel is each judged level's Overall, N-weighted over systems
// and splits (report.ColumnMeans).
func overallByLevel(rep *report.Report) map[string]float64 {
	means := report.ColumnMeans(rep)
	out := map[string]float64{}
	for _, lv := range []string{results.LevelAgent, results.LevelCollective} {
		if v, ok := means[lv+" overall"]; ok {
			out[lv] = v
		}
	}
	return out
}

// axisChart plots each level's score against one axis: numeric axes on a
// numeric x scale, others as categories in sorted order. Children sharing
// an axis value are averaged.
func axisChart(axis string, pts []sweepPoint) template.HTML {
	vals := map[string]bool{}
	numeric := true
	for _, p := range pts {
		if v, ok := p.Axes[axis]; ok {
			vals[v] = true
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				numeric = false
			}
		}
	}
	xs := make([]string, 0, len(vals))
	for v := range vals {
		xs = append(xs, v)
	}
	sort.Slice(xs, func(i, j int) bool {
		if numeric {
			a, _ := strconv.ParseFloat(xs[i], 64)
			b, _ := strconv.ParseFloat(xs[j], 64)
			return a < b
		}
		return xs[i] < xs[j]
	})
	var ss []series
	for _, lv := range []string{results.LevelAgent, results.LevelCollective} {
		sr := series{Name: lv + " overall"}
		for i, xv := range xs {
			var sum float64
			var n int
			for _, p := range pts {
				if v, ok := p.Score[lv]; ok && p.Axes[axis] == xv {
					sum, n = sum+v, n+1
				}
			}
			x := float64(i)
			if numeric {
				x, _ = strconv.ParseFloat(xv, 64)
			}
			y := math.NaN()
			if n > 0 {
				y = sum / float64(n)
			}
			sr.X, sr.Y = append(sr.X, x), append(sr.Y, y)
		}
		ss = append(ss, sr)
	}
	var labels []string
	if !numeric {
		labels = xs
	}
	return lineChart(fmt.Sprintf("Overall vs %s", axis), ss, labels)
}
