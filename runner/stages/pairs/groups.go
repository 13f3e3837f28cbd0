package pairs

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/stagekit"
)

// group is one context's collectively judged episodes.
type group struct {
	contextID string
	units     []string
	episodes  []Scored // ID = episode id
}

// groupUnits makes one unit per context of the judged episodes; an
// episode's score is the mean over collective criteria of its judge rows.
func (s *stage) groupUnits(ctx context.Context) ([]runner.Unit, error) {
	out, err := s.env.Output(s.cfg.Judged)
	if err != nil {
		return nil, err
	}
	rows, err := s.env.Store.JudgedEpisodeRows(ctx, out.Units)
	if err != nil {
		return nil, fmt.Errorf("judge stage %s: %w", s.cfg.Judged, err)
	}
	byCtx := map[string]*group{}
	var order []string
	var g *group
	var acc *meanOfMeans
	var lastFP string
	var lastID int64
	flush := func() {
		if acc != nil {
			g.episodes = append(g.episodes, Scored{ID: lastID, Score: acc.score()})
		}
	}
	for _, r := range rows {
		fp, cx, id, crit, score := r.UnitFP, r.ContextID, r.ID, r.Criterion, r.Score
		if acc == nil || fp != lastFP || id != lastID {
			flush()
			acc, lastFP, lastID = newMeanOfMeans(), fp, id
		}
		g = byCtx[cx]
		if g == nil {
			g = &group{contextID: cx}
			byCtx[cx] = g
			order = append(order, cx)
		}
		if !contains(g.units, fp) {
			g.units = append(g.units, fp)
		}
		acc.add(crit, score)
	}
	flush()
	units := make([]runner.Unit, 0, len(order))
	for _, cx := range order {
		g := byCtx[cx]
		sort.Strings(g.units)
		units = append(units, runner.Unit{Key: cx, Inputs: map[string]any{"judge_units": g.units, "context": cx}, Payload: g})
	}
	return units, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// runGroup pairs a context's episodes. The pairs table links candidates,
// so each paired episode is stored as a candidate of kind "block" (text =
// its transcript, meta = its episode id) owned by this unit.
func (s *stage) runGroup(ctx context.Context, g *group) (runner.Commit, error) {
	ps := Select(g.episodes, exact(s.cfg.Margin), s.cfg.MaxPerQuery)
	s.env.Count(s.key, "num_pairs", int64(len(ps)))
	if len(ps) == 0 {
		s.env.Count(s.key, "num_queries_without_pairs", 1)
	}
	used := map[int64]bool{}
	for _, p := range ps {
		used[p.Chosen.ID], used[p.Rejected.ID] = true, true
	}
	var cands []results.Candidate
	var eids []int64
	for _, e := range g.episodes {
		if !used[e.ID] {
			continue
		}
		ep, err := s.env.Store.GetEpisode(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		cands = append(cands, results.Candidate{Kind: "block", ContextID: g.contextID, SampleIdx: len(cands),
			Text: stagekit.Transcript(ep.Turns), Meta: json.RawMessage(fmt.Sprintf(`{"episode_id":%d,"system":%q}`, e.ID, ep.System))})
		eids = append(eids, e.ID)
	}
	return func(tx *results.Tx) error {
		ids, err := tx.InsertCandidates(cands)
		if err != nil {
			return err
		}
		cand := map[int64]int64{}
		for i, eid := range eids {
			cand[eid] = ids[i]
		}
		rows := make([]results.Pair, len(ps))
		for i, p := range ps {
			rows[i] = results.Pair{ContextID: g.contextID, ChosenID: cand[p.Chosen.ID], RejectedID: cand[p.Rejected.ID],
				ChosenScore: float(p.Chosen.Score), RejectedScore: float(p.Rejected.Score), Margin: float(p.gap())}
		}
		_, err = tx.InsertPairs(rows)
		return err
	}, nil
}
