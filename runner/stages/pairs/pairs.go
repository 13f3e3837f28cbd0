package pairs

import (
	"context"
	"fmt"
	"math/big"
	"sort"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// Config is #Pairs.
type Config struct {
	Judged      string  `json:"judged"`
	Margin      float64 `json:"margin"`
	MaxPerQuery int     `json:"max_per_query,omitempty"`
}

type stage struct {
	env      *runner.Env
	key      string
	cfg      Config
	episodes bool // the judge stage judged episodes (group pairs)
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	up, ok := env.Exp.Stages[s.cfg.Judged]
	if !ok || up.Kind != "judge" {
		return nil, fmt.Errorf("pairs stage %s: judged must name a judge stage, got %q", st.Key, s.cfg.Judged)
	}
	var jc struct {
		Items string `json:"items"`
	}
	if err := up.Decode(&jc); err != nil {
		return nil, err
	}
	switch k := env.Exp.Stages[jc.Items].Kind; k {
	case "candidates":
	case "episodes":
		s.episodes = true
	default:
		return nil, fmt.Errorf("pairs stage %s: judge stage %s judges a %s stage, want candidates or episodes", st.Key, s.cfg.Judged, k)
	}
	return s, nil
}

// Scored is one judged candidate: its id and its mean score over criteria,
// exact on the judge's scale (see exact).
type Scored struct {
	ID    int64
	Score *big.Rat
}

// float is r as stored in the pairs table.
func float(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// query is one unit's payload.
type query struct {
	contextID, persona string
	candidates         []Scored
}

func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	if s.episodes {
		return s.groupUnits(ctx)
	}
	out, err := s.env.Output(s.cfg.Judged)
	if err != nil {
		return nil, err
	}
	rows, err := s.env.Store.JudgedCandidateRows(ctx, out.Units)
	if err != nil {
		return nil, fmt.Errorf("judge stage %s: %w", s.cfg.Judged, err)
	}
	var units []runner.Unit
	var q *query
	var acc *meanOfMeans
	var lastFP string
	var lastID int64
	flush := func() {
		if acc != nil {
			q.candidates = append(q.candidates, Scored{ID: lastID, Score: acc.score()})
		}
	}
	for _, r := range rows {
		fp, cx, persona, id, crit, score := r.UnitFP, r.ContextID, r.Persona, r.ID, r.Criterion, r.Score
		if q == nil || fp != lastFP || id != lastID {
			flush()
			acc, lastID = newMeanOfMeans(), id
		}
		if q == nil || fp != lastFP {
			q = &query{contextID: cx, persona: persona}
			lastFP = fp
			units = append(units, runner.Unit{Key: cx + "/" + persona,
				Inputs: map[string]any{"judge_unit": fp, "context": cx, "persona": persona}, Payload: q})
		}
		acc.add(crit, score)
	}
	flush()
	return units, nil
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	if g, ok := u.Payload.(*group); ok {
		return s.runGroup(ctx, g)
	}
	q := u.Payload.(*query)
	ps := Select(q.candidates, exact(s.cfg.Margin), s.cfg.MaxPerQuery)
	s.env.Count(s.key, "num_pairs", int64(len(ps)))
	if len(ps) == 0 {
		s.env.Count(s.key, "num_queries_without_pairs", 1)
	}
	rows := make([]results.Pair, len(ps))
	for i, p := range ps {
		rows[i] = results.Pair{ContextID: q.contextID, Persona: q.persona, ChosenID: p.Chosen.ID, RejectedID: p.Rejected.ID,
			ChosenScore: float(p.Chosen.Score), RejectedScore: float(p.Rejected.Score), Margin: float(p.gap())}
	}
	return func(tx *results.Tx) error {
		_, err := tx.InsertPairs(rows)
		return err
	}, nil
}

// Pair is a selected (chosen, rejected) pair.
type Pair struct {
	Chosen, Rejected Scored
}

// gap is the chosen score minus the rejected score, exactly.
func (p Pair) gap() *big.Rat { return new(big.Rat).Sub(p.Chosen.Score, p.Rejected.Score) }

// Select returns every pair whose score gap is at least margin (chosen =
// higher score), largest gap first, at most max pairs (0 = no cap; the cap
// never exceeds K·(K−1)/2, the number of unordered pairs). Scores and
// margin are exact, so a gap equal to the margin is kept.
func Select(cands []Scored, margin *big.Rat, max int) []Pair {
	var out []Pair
	for i := 0; i < len(cands); i++ {
		for j := i + 1; j < len(cands); j++ {
			a, b := cands[i], cands[j]
			if b.Score.Cmp(a.Score) > 0 {
				a, b = b, a
			}
			p := Pair{Chosen: a, Rejected: b}
			if g := p.gap(); g.Sign() > 0 && g.Cmp(margin) >= 0 {
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		if c := out[x].gap().Cmp(out[y].gap()); c != 0 {
			return c > 0
		}
		if out[x].Chosen.ID != out[y].Chosen.ID {
			return out[x].Chosen.ID < out[y].Chosen.ID
		}
		return out[x].Rejected.ID < out[y].Rejected.ID
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}
