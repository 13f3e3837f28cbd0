package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/figures"
)

// SweepPoint is one variant of a sweep: its axis values and, per judged
// level, its Overall with the interval of the run's one system (NaN
// bounds when the run has several, or none was computed).
type SweepPoint struct {
	Run     results.Run
	Axes    map[string]string
	Overall map[string]figures.Interval
}

// childAxes is a sweep child's axes JSON: the variant the runner wrote,
// and, for a racing search's rounds, the round.
type childAxes struct {
	Axes  map[string]json.RawMessage `json:"axes"`
	Seed  *int                       `json:"seed"`
	Round int                        `json:"race_round"`
}

// SweepPoints reads a sweep parent's children, one point per variant: of
// a racing search's rounds, each variant's last (the most contexts).
func SweepPoints(ctx context.Context, st *results.Store, parentID string, opts Options) ([]SweepPoint, error) {
	children, err := st.ListRuns(ctx, results.RunFilter{ParentID: parentID, Asc: true, Limit: 100000})
	if err != nil {
		return nil, err
	}
	type last struct {
		round int
		i     int
	}
	byVariant := map[string]last{}
	var pts []SweepPoint
	opts.SplitBy = "none"
	for _, c := range children {
		var ax childAxes
		_ = json.Unmarshal(c.AxesJSON, &ax)
		if ax.Axes == nil { // a flat {"path": value} object
			_ = json.Unmarshal(c.AxesJSON, &ax.Axes)
		}
		p := SweepPoint{Run: c.Run, Axes: map[string]string{}, Overall: map[string]figures.Interval{}}
		for k, v := range ax.Axes {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			p.Axes[k] = s
		}
		if ax.Seed != nil {
			p.Axes["seed"] = strconv.Itoa(*ax.Seed)
		}
		key, _ := json.Marshal(p.Axes)
		if l, ok := byVariant[string(key)]; ok && l.round > ax.Round {
			continue
		}
		rep, err := Build(ctx, st, []string{c.ID}, opts)
		if err != nil {
			return nil, err
		}
		means := ColumnMeans(rep)
		for _, t := range rep.Tables {
			if t.Level == results.LevelMetric {
				continue
			}
			v, ok := means[t.Level+" overall"]
			if !ok {
				continue
			}
			iv := figures.Interval{Mean: v, Lo: math.NaN(), Hi: math.NaN()}
			if len(t.Rows) == 1 {
				cell := t.Rows[0].Cells[len(t.Criteria)-1]
				iv.Lo, iv.Hi = cell.CILow, cell.CIHigh
			}
			p.Overall[t.Level] = iv
		}
		if l, ok := byVariant[string(key)]; ok {
			pts[l.i] = p
			byVariant[string(key)] = last{ax.Round, l.i}
			continue
		}
		byVariant[string(key)] = last{ax.Round, len(pts)}
		pts = append(pts, p)
	}
	return pts, nil
}

// SweepFigures draws, for each axis of a sweep, the variants' Overall
// (per judged level, with its CI) against the axis value: numeric axes on
// a numeric scale, others as categories; variants sharing a value (other
// axes differing) are averaged, without an interval.
func SweepFigures(pts []SweepPoint, title string) ([]figures.Figure, error) {
	axes := map[string]bool{}
	for _, p := range pts {
		for k := range p.Axes {
			axes[k] = true
		}
	}
	names := make([]string, 0, len(axes))
	for k := range axes {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []figures.Figure
	for _, ax := range names {
		xs, numeric := axisValues(pts, ax)
		var lines []figures.Line
		for _, lv := range []string{results.LevelAgent, results.LevelCollective} {
			l := figures.Line{Name: lv + " overall"}
			have := false
			for i, xv := range xs {
				var sum float64
				var n int
				var only figures.Interval
				for _, p := range pts {
					if iv, ok := p.Overall[lv]; ok && p.Axes[ax] == xv {
						sum, n, only = sum+iv.Mean, n+1, iv
					}
				}
				x := float64(i)
				if numeric {
					x, _ = strconv.ParseFloat(xv, 64)
				}
				y, lo, hi := math.NaN(), math.NaN(), math.NaN()
				if n > 0 {
					y, have = sum/float64(n), true
				}
				if n == 1 {
					lo, hi = only.Lo, only.Hi
				}
				l.X, l.Y, l.Lo, l.Hi = append(l.X, x), append(l.Y, y), append(l.Lo, lo), append(l.Hi, hi)
			}
			if have {
				lines = append(lines, l)
			}
		}
		var cats []string
		if !numeric {
			cats = xs
		}
		f, err := figures.Lines(figures.Slug("sweep "+ax), fmt.Sprintf("%s: Overall vs %s", title, ax), ax,
			"Overall (0-100)", lines, cats)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// axisValues lists an axis's values in order, and whether all are numbers.
func axisValues(pts []SweepPoint, ax string) ([]string, bool) {
	seen := map[string]bool{}
	numeric := true
	var xs []string
	for _, p := range pts {
		v, ok := p.Axes[ax]
		if !ok || seen[v] {
			continue
		}
		seen[v] = true
		xs = append(xs, v)
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	sort.Slice(xs, func(i, j int) bool {
		if numeric {
			a, _ := strconv.ParseFloat(xs[i], 64)
			b, _ := strconv.ParseFloat(xs[j], 64)
			return a < b
		}
		return xs[i] < xs[j]
	})
	return xs, numeric
}

// TrainingFigures draws a training curve per logged value (loss, reward
// with its std, KL, grad norm, learning rate, then every extra value),
// one figure each, over every step the curve has.
func TrainingFigures(c results.TrainingCurve) ([]figures.Figure, error) {
	x := make([]float64, len(c.Steps))
	for i, st := range c.Steps {
		x[i] = float64(st.Step)
	}
	col := func(get func(results.TrainingStep) *float64) ([]float64, bool) {
		ys, any := make([]float64, len(c.Steps)), false
		for i, st := range c.Steps {
			ys[i] = math.NaN()
			if p := get(st); p != nil {
				ys[i], any = *p, true
			}
		}
		return ys, any
	}
	// A value logged at some steps only (a held-out evaluation at the end
	// of each epoch) is drawn through the steps that have it, not broken
	// at every step in between.
	present := func(ys []float64) ([]float64, []float64) {
		var px, py []float64
		for i, y := range ys {
			if !math.IsNaN(y) {
				px, py = append(px, x[i]), append(py, y)
			}
		}
		return px, py
	}
	value := func(k string) func(results.TrainingStep) *float64 {
		return func(s results.TrainingStep) *float64 {
			if v, ok := s.Values[k]; ok {
				return &v
			}
			return nil
		}
	}
	type curve struct {
		name string
		get  func(results.TrainingStep) *float64
	}
	curves := []curve{
		{"loss", func(s results.TrainingStep) *float64 { return s.Loss }},
		{"reward", func(s results.TrainingStep) *float64 { return s.Reward }},
		{"KL", func(s results.TrainingStep) *float64 { return s.KL }},
		{"grad norm", func(s results.TrainingStep) *float64 { return s.GradNorm }},
		{"learning rate", func(s results.TrainingStep) *float64 { return s.LR }},
	}
	extra := map[string]bool{}
	for _, st := range c.Steps {
		for k := range st.Values {
			extra[k] = k != "reward_std"
		}
	}
	var names []string
	for k, ok := range extra {
		if ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		curves = append(curves, curve{k, value(k)})
	}
	var out []figures.Figure
	for _, cv := range curves {
		ys, ok := col(cv.get)
		if !ok {
			continue
		}
		px, py := present(ys)
		lines := []figures.Line{{Name: cv.name, X: px, Y: py, NoMarkers: len(px) > 40}}
		if cv.name == "reward" {
			if std, ok := col(value("reward_std")); ok {
				lines = append(lines, figures.Line{Name: "reward std", X: x, Y: std, NoMarkers: len(x) > 40})
			}
		}
		f, err := figures.LinesSized(figures.Slug("train "+c.StageKey+" "+c.UnitFP[:min(8, len(c.UnitFP))]+" "+cv.name),
			fmt.Sprintf("%s: %s", c.StageKey, cv.name), "step", "", lines, nil, 330, 210)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
