package pairs

import (
	"context"
	"fmt"
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

func init() {
	runner.Register(runner.Kind{Name: "pairs", Version: "1", Definition: "#Pairs",
		Summary: "chosen/rejected pairs from judged candidates (score-margin filter)", New: New})
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

// Scored is one judged candidate: its id and its mean score over criteria.
type Scored struct {
	ID    int64
	Score float64
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
	judged, err := s.env.Store.JudgedCandidates(ctx, out.Units)
	if err != nil {
		return nil, fmt.Errorf("judge stage %s: %w", s.cfg.Judged, err)
	}
	var units []runner.Unit
	var q *query
	var last string
	for _, j := range judged {
		fp, cx, persona, c := j.UnitFP, j.ContextID, j.Persona, Scored{ID: j.ID, Score: j.Score}
		if q == nil || fp != last {
			q = &query{contextID: cx, persona: persona}
			last = fp
			units = append(units, runner.Unit{Key: cx + "/" + persona,
				Inputs: map[string]any{"judge_unit": fp, "context": cx, "persona": persona}, Payload: q})
		}
		q.candidates = append(q.candidates, c)
	}
	return units, nil
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	if g, ok := u.Payload.(*group); ok {
		return s.runGroup(ctx, g)
	}
	q := u.Payload.(*query)
	ps := Select(q.candidates, s.cfg.Margin, s.cfg.MaxPerQuery)
	s.env.Count(s.key, "num_pairs", int64(len(ps)))
	if len(ps) == 0 {
		s.env.Count(s.key, "num_queries_without_pairs", 1)
	}
	rows := make([]results.Pair, len(ps))
	for i, p := range ps {
		rows[i] = results.Pair{ContextID: q.contextID, Persona: q.persona, ChosenID: p.Chosen.ID, RejectedID: p.Rejected.ID,
			ChosenScore: p.Chosen.Score, RejectedScore: p.Rejected.Score, Margin: p.Chosen.Score - p.Rejected.Score}
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

// Select returns every pair whose score gap is at least margin (chosen =
// higher score), largest gap first, at most max pairs (0 = no cap; the cap
// never exceeds K·(K−1)/2, the number of unordered pairs).
func Select(cands []Scored, margin float64, max int) []Pair {
	var out []Pair
	for i := 0; i < len(cands); i++ {
		for j := i + 1; j < len(cands); j++ {
			a, b := cands[i], cands[j]
			if b.Score > a.Score {
				a, b = b, a
			}
			if a.Score-b.Score >= margin && a.Score != b.Score {
				out = append(out, Pair{Chosen: a, Rejected: b})
			}
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		gx, gy := out[x].Chosen.Score-out[x].Rejected.Score, out[y].Chosen.Score-out[y].Rejected.Score
		if gx != gy {
			return gx > gy
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
