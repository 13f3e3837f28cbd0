package rubric

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// OverallCriterion is the criterion id of comparison preferences.
const OverallCriterion = "overall"

var labels = []string{"A", "B", "C"}

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

type compareAnswer struct {
	Winner    string   `json:"winner"`
	Ranking   []string `json:"ranking"`
	Rationale string   `json:"rationale"`
}

func (c *chatClient) compareOnce(ctx context.Context, it sdk.Item, criteria []spec.Criterion, orders [][]int) (sdk.Preference, []sdk.RawOutput, error) {
	n := len(it.Alternatives)
	schema, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"rationale", "winner", "ranking"},
		"additionalProperties": false, "properties": map[string]any{
			"rationale": map[string]any{"type": "string"},
			"winner":    map[string]any{"type": "string", "enum": append(append([]string{}, labels[:n]...), "tie")},
			"ranking":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": labels[:n]}},
		}})
	var raws []sdk.RawOutput
	pref := sdk.Preference{CriterionID: OverallCriterion, Judge: c.judge.Name}
	for oi, order := range orders {
		out, err := c.complete(ctx, comparePrompt(it, criteria, order), "rubric_comparison", schema, it.Seed+int64(oi))
		if err != nil {
			return pref, raws, err
		}
		raws = append(raws, sdk.RawOutput{Judge: c.judge.Name, Text: out})
		js, ok := extractJSON(out)
		var ans compareAnswer
		if !ok || json.Unmarshal([]byte(js), &ans) != nil {
			return pref, raws, fmt.Errorf("no comparison JSON in the judge output: %s", snippet([]byte(out)))
		}
		winner, err := labelToID(it, order, ans.Winner)
		if err != nil {
			return pref, raws, err
		}
		if oi == 0 {
			pref.WinnerID, pref.Rationale = winner, ans.Rationale
			for _, l := range ans.Ranking {
				if id, err := labelToID(it, order, l); err == nil && id != "" {
					pref.Ranking = append(pref.Ranking, id)
				}
			}
		} else if winner != pref.WinnerID {
			pref.WinnerID = "" // the verdict flipped with the order: position bias, count a tie
			pref.Ranking = nil
			pref.Rationale += "\n(inconsistent under position swap: counted as a tie)"
		}
	}
	return pref, raws, nil
}

func labelToID(it sdk.Item, order []int, label string) (string, error) {
	l := strings.ToUpper(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(label), "Response")))
	if strings.EqualFold(l, "tie") {
		return "", nil
	}
	for i := range order {
		if l == labels[i] {
			return it.Alternatives[order[i]].ID, nil
		}
	}
	return "", fmt.Errorf("winner %q is not one of %s or tie", label, strings.Join(labels[:len(order)], ", "))
}

func comparePrompt(it sdk.Item, criteria []spec.Criterion, order []int) []message {
	var b strings.Builder
	b.WriteString("You are an impartial expert evaluator. Compare the responses below and decide which is best overall, weighing these criteria:\n\n")
	writeCriteria(&b, criteria)
	b.WriteString("\nThe order of the responses is random and says nothing about quality. ")
	b.WriteString(`Answer with one JSON object: {"rationale": "...", "winner": "A", "ranking": ["A", "B"]}; winner may be "tie".` + "\n")
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
		fmt.Fprintf(&u, "## Response %s\n", labels[i])
		if len(a.Turns) > 0 {
			writeTurns(&u, a.Turns)
		} else {
			u.WriteString(a.Response + "\n")
		}
		u.WriteString("\n")
	}
	return []message{{Role: "system", Content: b.String()}, {Role: "user", Content: u.String()}}
}
