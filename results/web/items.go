package web

import (
	"html/template"
	"net/http"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
)

// maxContexts bounds the context list of the candidates page.
const maxContexts = 500

// candidatesData is one context's candidates and pairs.
type candidatesData struct {
	Run        results.Run
	Contexts   []string
	Context    string
	Candidates []results.CandidateScore
	Pairs      []results.Pair
	Judgments  map[int64][]results.Judgment
}

// candidatesPage is GET /runs/{id}/candidates[?context=C]: the run's
// candidate contexts, and one context's candidates with their mean scores,
// judgments and the pairs built from them.
func (s *server) candidatesPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	run, err := s.st.GetRun(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT DISTINCT c.context_id FROM candidates c
		WHERE EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = c.unit_fp)
		ORDER BY c.context_id LIMIT ?`, run.ID, maxContexts)
	if err != nil {
		return err
	}
	d := candidatesData{Run: run, Judgments: map[int64][]results.Judgment{}}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return err
		}
		d.Contexts = append(d.Contexts, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	d.Context = r.URL.Query().Get("context")
	if d.Context == "" && len(d.Contexts) > 0 {
		d.Context = d.Contexts[0]
	}
	if d.Context != "" {
		if d.Candidates, err = s.st.Candidates(ctx, run.ID, d.Context); err != nil {
			return err
		}
		if len(d.Candidates) == 0 {
			return notFound("run %s has no candidates for context %q", run.ID, d.Context)
		}
		if d.Pairs, err = s.st.Pairs(ctx, run.ID, d.Context); err != nil {
			return err
		}
		for _, c := range d.Candidates {
			js, err := s.st.CandidateJudgments(ctx, c.ID)
			if err != nil {
				return err
			}
			d.Judgments[c.ID] = js
		}
	}
	return s.render(w, "candidates", page{Title: "Candidates of " + run.Name, Data: d})
}

// trainingData is a run's training curves, one chart per metric per curve.
type trainingData struct {
	Run    results.Run
	Curves []curveView
}

type curveView struct {
	StageKey string
	UnitFP   string
	Steps    int
	Last     results.TrainingStep
	Charts   []template.HTML
	// Heldout is the stage's held-out evaluation, when it recorded one.
	Heldout *results.Heldout
}

// trainingPage is GET /runs/{id}/training: loss, reward mean/std, KL, grad
// norm, learning rate and any extra logged value, per training unit, with
// each stage's held-out evaluation (reward models: accuracy and loss on
// held-out pairs, per epoch and at the end; GRPO: held-out reward before
// and after with the 95% CI of the difference).
func (s *server) trainingPage(w http.ResponseWriter, r *http.Request) error {
	run, err := s.st.GetRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	curves, err := s.st.TrainingCurves(r.Context(), run.ID)
	if err != nil {
		return err
	}
	held, err := s.st.Heldout(r.Context(), run.ID)
	if err != nil {
		return err
	}
	d := trainingData{Run: run}
	for _, c := range curves {
		cv, err := curveCharts(c)
		if err != nil {
			return err
		}
		cv.Heldout = held[c.StageKey]
		d.Curves = append(d.Curves, cv)
	}
	return s.render(w, "training", page{Title: "Training of " + run.Name, Data: d})
}

func curveCharts(c results.TrainingCurve) (curveView, error) {
	cv := curveView{StageKey: c.StageKey, UnitFP: c.UnitFP, Steps: len(c.Steps)}
	if len(c.Steps) > 0 {
		cv.Last = c.Steps[len(c.Steps)-1]
	}
	figs, err := report.TrainingFigures(c)
	if err != nil {
		return cv, err
	}
	for _, f := range figs {
		cv.Charts = append(cv.Charts, f.HTML())
	}
	return cv, nil
}
