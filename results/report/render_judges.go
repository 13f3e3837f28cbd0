package report

import (
	"encoding/csv"
	"math"
	"strconv"

	"mascot.dev/mascot/results"
)

// f3 formats an agreement statistic with three decimals; NaN is "–".
func f3(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// judgeGrids lays out a judge table as two grids: each judge's Overall per
// system × split, and the agreement per criterion (items, Krippendorff's
// interval alpha, one Spearman column per pair of judges).
func judgeGrids(rep *Report, t JudgeTable) (scoreTitle string, scoreHeader []string, scoreRows [][]string,
	agreeTitle string, agreeHeader []string, agreeRows [][]string) {
	scoreTitle = judgeTableTitle(rep, t)
	scoreHeader = append([]string{"System", "Split", "N"}, t.Judges...)
	for _, r := range t.Rows {
		row := []string{SystemLabel(r.System, r.Population), r.Split, strconv.Itoa(r.N)}
		for _, c := range r.Cells {
			row = append(row, fmtStat(c))
		}
		scoreRows = append(scoreRows, row)
	}
	agreeTitle = "Inter-judge agreement, " + levelName(t.Level) + " — " + runTitle(rep, t.RunID) +
		" (Krippendorff's α, interval; Spearman's ρ over the items both judges scored)"
	agreeHeader = []string{"Criterion", "Items", "α"}
	if len(t.Agreement) > 0 {
		for _, p := range t.Agreement[0].Pairs {
			agreeHeader = append(agreeHeader, "ρ "+p.A+" ~ "+p.B)
		}
	}
	for _, a := range t.Agreement {
		row := []string{results.CriterionName(a.Criterion), strconv.Itoa(a.Items), f3(a.Alpha)}
		for _, p := range a.Pairs {
			row = append(row, f3(p.Rho))
		}
		agreeRows = append(agreeRows, row)
	}
	return
}

func levelName(lv string) string {
	if lv == results.LevelCollective {
		return "collective criteria"
	}
	return "per-agent criteria"
}

// renderJudgeGrids writes every judge table of the report.
func renderJudgeGrids(rep *Report, g gridTable) error {
	for _, t := range rep.Judges {
		st, sh, sr, at, ah, ar := judgeGrids(rep, t)
		if err := g(st, sh, sr); err != nil {
			return err
		}
		if err := g(at, ah, ar); err != nil {
			return err
		}
	}
	return nil
}

// gridTable writes one titled table.
type gridTable func(title string, header []string, rows [][]string) error

// judgesCSV writes the judge tables as CSV lines: "judge_score" (criterion
// = the judge; its Overall over the row's episodes), "judge_agreement"
// (n = items, mean = Krippendorff's interval alpha) and "judge_spearman"
// (system and split = the two judges, n = items both scored, mean = rho).
func judgesCSV(cw *csv.Writer, rep *Report) error {
	for _, t := range rep.Judges {
		for _, r := range t.Rows {
			for i, c := range r.Cells {
				if err := cw.Write([]string{"judge_score", t.RunID, t.Level, r.System, r.Split, t.Judges[i], strconv.Itoa(c.N),
					csvNum(c.Mean), csvNum(c.Std), csvNum(c.CILow), csvNum(c.CIHigh), "", "", r.Population}); err != nil {
					return err
				}
			}
		}
		for _, a := range t.Agreement {
			if err := cw.Write([]string{"judge_agreement", t.RunID, t.Level, "", "", a.Criterion, strconv.Itoa(a.Items),
				csvNum(a.Alpha), "", "", "", "", "", ""}); err != nil {
				return err
			}
			for _, p := range a.Pairs {
				if err := cw.Write([]string{"judge_spearman", t.RunID, t.Level, p.A, p.B, a.Criterion, strconv.Itoa(p.N),
					csvNum(p.Rho), "", "", "", "", "", ""}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// AlphaText is Alpha with three decimals, "–" where undefined.
func (a JudgeAgreement) AlphaText() string { return f3(a.Alpha) }

// RhoText is Rho with three decimals, "–" where undefined.
func (p JudgePair) RhoText() string { return f3(p.Rho) }
