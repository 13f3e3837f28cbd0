package report

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"mascot.dev/mascot/results"
)

// Sources of cross-run win rates.
const (
	SourceHuman = "human"
	SourceJudge = "llm-judge"
)

// CrossRun is the human evaluation across runs (the viewer's /rate/runs):
// per criterion, each arm's (RUN:SYSTEM) win rate among the raters'
// choices, next to the LLM judge's on the very same comparisons, and how
// often the two agree.
type CrossRun struct {
	WinRates  []WinRate   `json:"win_rates"` // Source human or llm-judge; RunID empty
	Agreement []Agreement `json:"agreement"`
}

// Agreement compares the raters' and the judge's choices on the
// comparisons the judge scored every shown episode of, for one criterion.
type Agreement struct {
	Criterion string  `json:"criterion"`
	N         int     `json:"n"`     // comparisons both chose on
	Agree     int     `json:"agree"` // same choice (tie included)
	Rate      float64 `json:"rate"`  // agree / n
	// Kappa is Cohen's κ over the choices (arms and tie as categories);
	// NaN when chance agreement is total.
	Kappa float64 `json:"-"`
}

// MarshalJSON writes an undefined kappa as null.
func (a Agreement) MarshalJSON() ([]byte, error) {
	type plain Agreement
	return json.Marshal(struct {
		plain
		Kappa num `json:"kappa"`
	}{plain(a), num(a.Kappa)})
}

// Overall names the criterion of a rater's overall preference ("" stored).
const overallCriterion = "overall"

// CrossRunRatings gathers the cross-run ratings that showed an episode of
// any of runIDs. The judge's choice on a comparison is the episode with the
// highest mean normalised judge score for the criterion (for overall, the
// mean over its criteria, as the report's Overall column); equal highs are
// a tie; a comparison with an unscored episode has no judge choice. It
// returns nil when there are no such ratings.
func CrossRunRatings(ctx context.Context, st *results.Store, runIDs []string, confidence float64) (*CrossRun, error) {
	prefs, err := st.CrossRunPreferences(ctx, runIDs)
	if err != nil || len(prefs) == 0 {
		return nil, err
	}
	if confidence == 0 {
		confidence = 0.95
	}
	scores := map[int64]map[string]float64{}
	scoreOf := func(id int64, crit string) (float64, bool, error) {
		sc, ok := scores[id]
		if !ok {
			if sc, err = st.EpisodeCriterionScores(ctx, id); err != nil {
				return 0, false, err
			}
			scores[id] = sc
		}
		if crit != overallCriterion {
			v, ok := sc[crit]
			return v, ok, nil
		}
		if len(sc) == 0 {
			return 0, false, nil
		}
		var sum float64
		for _, v := range sc {
			sum += v
		}
		return sum / float64(len(sc)), true, nil
	}
	var choices []Choice
	pairs := map[string][][2]string{} // criterion -> (human, judge)
	for _, p := range prefs {
		crit := p.Criterion
		if crit == "" {
			crit = overallCriterion
		}
		choices = append(choices, Choice{Source: SourceHuman, Criterion: crit, Systems: p.Systems, Choice: p.Choice})
		judged, ok, err := judgeChoice(p, crit, scoreOf)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		choices = append(choices, Choice{Source: SourceJudge, Criterion: crit, Systems: p.Systems, Choice: judged})
		pairs[crit] = append(pairs[crit], [2]string{p.Choice, judged})
	}
	cr := &CrossRun{WinRates: TallyWins("", choices, confidence)}
	for _, crit := range sortedKeys(pairs) {
		cr.Agreement = append(cr.Agreement, agreement(crit, pairs[crit]))
	}
	return cr, nil
}

// judgeChoice is the judge's pick among a rating's episodes.
func judgeChoice(p results.HumanPreference, crit string, scoreOf func(int64, string) (float64, bool, error)) (string, bool, error) {
	best, winner, tie := math.Inf(-1), "", false
	for i, id := range p.EpisodeIDs {
		v, ok, err := scoreOf(id, crit)
		if err != nil || !ok {
			return "", false, err
		}
		switch {
		case v > best:
			best, winner, tie = v, p.Systems[i], false
		case v == best:
			tie = true
		}
	}
	if tie {
		return results.Tie, true, nil
	}
	return winner, winner != "", nil
}

// agreement computes raw agreement and Cohen's kappa of (human, judge)
// choice pairs.
func agreement(crit string, pairs [][2]string) Agreement {
	a := Agreement{Criterion: crit, N: len(pairs)}
	h, j := map[string]float64{}, map[string]float64{}
	for _, p := range pairs {
		if p[0] == p[1] {
			a.Agree++
		}
		h[p[0]]++
		j[p[1]]++
	}
	n := float64(a.N)
	a.Rate = float64(a.Agree) / n
	var pe float64
	for k, v := range h {
		pe += v / n * j[k] / n
	}
	a.Kappa = math.NaN()
	if pe < 1 {
		a.Kappa = (a.Rate - pe) / (1 - pe)
	}
	return a
}

// crossRunCSV writes the cross-run win rates as "cross_run_win_rate" lines
// (laid out like win_rate lines, the RUN:SYSTEM label as system) and the
// agreement as "agreement" lines (n, the agreement rate as mean, Cohen's
// kappa as std).
func crossRunCSV(cw *csv.Writer, cr *CrossRun) error {
	if cr == nil {
		return nil
	}
	// Lines have CSVHeader's columns; population is empty (evaluation).
	for _, wr := range cr.WinRates {
		if err := cw.Write([]string{"cross_run_win_rate", "", wr.Source, wr.System, wr.Kind, wr.Criterion, strconv.Itoa(wr.Shown),
			csvNum(wr.Rate), "", csvNum(wr.CILow), csvNum(wr.CIHigh), strconv.Itoa(wr.Wins), strconv.Itoa(wr.Ties), ""}); err != nil {
			return err
		}
	}
	for _, a := range cr.Agreement {
		if err := cw.Write([]string{"agreement", "", "human-vs-" + SourceJudge, "", "", a.Criterion, strconv.Itoa(a.N),
			csvNum(a.Rate), csvNum(a.Kappa), "", "", strconv.Itoa(a.Agree), "", ""}); err != nil {
			return err
		}
	}
	return nil
}

// renderCrossRun writes the cross-run tables of a report.
func renderCrossRun(w io.Writer, cr *CrossRun, conf float64, g grid) error {
	if cr == nil {
		return nil
	}
	byKey := map[string]map[string]WinRate{} // criterion|kind|arm -> source -> rate
	var keys []string
	for _, wr := range cr.WinRates {
		k := wr.Criterion + "\x00" + wr.Kind + "\x00" + wr.System
		if byKey[k] == nil {
			byKey[k] = map[string]WinRate{}
			keys = append(keys, k)
		}
		byKey[k][wr.Source] = wr
	}
	slices.Sort(keys)
	fmtRate := func(wr WinRate, ok bool) string {
		if !ok {
			return "–"
		}
		return fmt.Sprintf("%s (%d/%d, %d ties)", FormatRate(wr.Rate, wr.CILow, wr.CIHigh), wr.Wins, wr.Shown, wr.Ties)
	}
	var rows [][]string
	for _, k := range keys {
		hu, okH := byKey[k][SourceHuman]
		ju, okJ := byKey[k][SourceJudge]
		ref := hu
		if !okH {
			ref = ju
		}
		rows = append(rows, []string{ref.Criterion, ref.Kind, ref.System, fmtRate(hu, okH), fmtRate(ju, okJ)})
	}
	title := fmt.Sprintf("Human ratings across runs: win rates, %.0f%% Wilson CI (LLM judge on the same comparisons)", 100*conf)
	if err := g.table(w, title, []string{"Criterion", "Kind", "Run:System", "Human", "LLM judge"}, rows); err != nil {
		return err
	}
	if len(cr.Agreement) == 0 {
		return nil
	}
	rows = rows[:0]
	for _, a := range cr.Agreement {
		rows = append(rows, []string{a.Criterion, strconv.Itoa(a.N), strconv.Itoa(a.Agree), Number(100*a.Rate) + "%", Number(a.Kappa)})
	}
	return g.table(w, "Human–judge agreement across runs", []string{"Criterion", "N", "Agree", "Agreement", "Cohen's κ"}, rows)
}
