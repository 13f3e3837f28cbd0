package rubric

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"mascot.dev/mascot/experiments/prompts"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// OverallCriterion is the criterion id of comparison preferences.
const OverallCriterion = "overall"

// compareItem judges a pairwise or three-way comparison. Each judge sees the
// alternatives in an order drawn from the item's seed and, with swap on,
// again in the reversed order; a judge's winner counts only when it is the
// same in both orders (otherwise a tie, the position-bias guard). The
// pooled winner is the strict majority of the judges' winners.
func (j *Judge) compareItem(ctx context.Context, it sdk.Item) sdk.ItemResult {
	r := sdk.ItemResult{ItemID: it.ID}
	n := len(it.Alternatives)
	if n != 2 && n != 3 {
		r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "a comparison needs 2 or 3 alternatives, got %d", n))
		return r
	}
	level := LevelAgent
	if len(it.Alternatives[0].Turns) > 0 {
		level = LevelCollective
	}
	criteria := criteriaFor(PaperV1(), level, j.cfg.Criteria)
	votes := map[string]int{}
	for k, c := range j.clients {
		rng := rand.New(rand.NewPCG(uint64(it.Seed), uint64(k)))
		orders := [][]int{rng.Perm(n)}
		if *j.cfg.Swap {
			rev := make([]int, n)
			for i, x := range orders[0] {
				rev[n-1-i] = x
			}
			orders = append(orders, rev)
		}
		pref, raws, err := c.compareOnce(ctx, it, criteria, orders)
		r.RawOutputs = append(r.RawOutputs, raws...)
		if err != nil {
			r.Diagnostics = append(r.Diagnostics, sdk.Diagnostic{Severity: spec.SeverityError, ItemID: it.ID,
				Summary: fmt.Sprintf("judge %s comparison failed", c.judge.Name), Detail: err.Error()})
			continue
		}
		r.Preferences = append(r.Preferences, pref)
		votes[pref.WinnerID]++
	}
	if spec.HasErrors(r.Diagnostics) {
		r.Preferences = nil
		return r
	}
	pooled := sdk.Preference{CriterionID: OverallCriterion, Rationale: "majority over judges"}
	for id, v := range votes {
		if id != "" && 2*v > len(j.clients) {
			pooled.WinnerID = id
		}
	}
	r.Preferences = append(r.Preferences, pooled)
	return r
}

func (c *chatClient) compareOnce(ctx context.Context, it sdk.Item, criteria []spec.Criterion, orders [][]int) (sdk.Preference, []sdk.RawOutput, error) {
	n := len(it.Alternatives)
	cp := prompts.Comparison()
	var raws []sdk.RawOutput
	pref := sdk.Preference{CriterionID: OverallCriterion, Judge: c.judge.Name}
	for oi, order := range orders {
		out, err := c.complete(ctx, comparePrompt(it, criteria, order), "rubric_comparison", cp.Schema(n), it.Seed+int64(oi))
		if err != nil {
			return pref, raws, err
		}
		raws = append(raws, sdk.RawOutput{Judge: c.judge.Name, Text: out})
		v, err := cp.ParseComparison(out, n)
		if err != nil {
			return pref, raws, err
		}
		winner := ""
		if v.Winner >= 0 {
			winner = it.Alternatives[order[v.Winner]].ID
		}
		if oi == 0 {
			pref.WinnerID, pref.Rationale = winner, v.Rationale
			for _, p := range v.Ranking {
				pref.Ranking = append(pref.Ranking, it.Alternatives[order[p]].ID)
			}
		} else if winner != pref.WinnerID {
			pref.WinnerID = "" // the verdict flipped with the order: position bias, count a tie
			pref.Ranking = nil
			pref.Rationale += "\n(inconsistent under position swap: counted as a tie)"
		}
	}
	return pref, raws, nil
}

// comparePrompt renders experiments/prompts/comparison.cue around the
// item: the criteria, the context, and the alternatives in order.
func comparePrompt(it sdk.Item, criteria []spec.Criterion, order []int) []message {
	cp := prompts.Comparison()
	var b strings.Builder
	b.WriteString(cp.Instruction + "\n\n")
	writeCriteria(&b, criteria)
	b.WriteString("\n" + cp.OrderNote + " " + cp.AnswerFor(len(order)) + "\n")
	var u strings.Builder
	if it.Source != "" {
		fmt.Fprintf(&u, "## Source material\n%s\n\n", it.Source)
	}
	if len(it.Context) > 0 {
		u.WriteString("## Conversation so far\n")
		writeTurns(&u, it.Context)
		u.WriteString("\n")
	}
	for i, idx := range order {
		a := it.Alternatives[idx]
		u.WriteString(cp.HeadingFor(i) + "\n")
		if len(a.Turns) > 0 {
			writeTurns(&u, a.Turns)
		} else {
			u.WriteString(a.Response + "\n")
		}
		u.WriteString("\n")
	}
	return []message{{Role: "system", Content: b.String()}, {Role: "user", Content: u.String()}}
}
