package judge

import (
	"context"
	"fmt"
	"sort"

	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// systemsCompared lists items then compare, without repeats.
func (s *stage) systemsCompared() []string {
	out := []string{s.cfg.Items}
	for _, c := range s.cfg.Compare {
		dup := false
		for _, o := range out {
			dup = dup || o == c
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// stageEpisodes are one stage's episodes of one context, in order.
type stageEpisodes struct {
	units    []string
	episodes []*results.Episode
}

// compareUnits makes one unit per context that every compared stage has;
// the i-th episodes of each stage form one comparison item.
func (s *stage) compareUnits(ctx context.Context) ([]runner.Unit, error) {
	systems := s.systemsCompared()
	if len(systems) < 2 || len(systems) > 3 {
		return nil, fmt.Errorf("judge stage %s: level compare needs 2 or 3 episodes stages (items + compare), got %d", s.key, len(systems))
	}
	byCtx := map[string][]*stageEpisodes{}
	for k, sys := range systems {
		fps, err := s.upstreamUnits(sys)
		if err != nil {
			return nil, err
		}
		for _, fp := range fps {
			eps, err := s.env.Store.EpisodesForUnit(ctx, fp)
			if err != nil {
				return nil, err
			}
			for _, e := range eps {
				se := byCtx[e.ConvID]
				if se == nil {
					se = make([]*stageEpisodes, len(systems))
					byCtx[e.ConvID] = se
				}
				if se[k] == nil {
					se[k] = &stageEpisodes{}
				}
				if n := len(se[k].units); n == 0 || se[k].units[n-1] != fp {
					se[k].units = append(se[k].units, fp)
				}
				se[k].episodes = append(se[k].episodes, e)
			}
		}
	}
	contexts := make([]string, 0, len(byCtx))
	for c := range byCtx {
		contexts = append(contexts, c)
	}
	sort.Strings(contexts)
	var units []runner.Unit
	for _, c := range contexts {
		if u, ok := s.compareUnit(c, systems, byCtx[c]); ok {
			units = append(units, u)
		}
	}
	return units, nil
}

func (s *stage) compareUnit(convID string, systems []string, se []*stageEpisodes) (runner.Unit, bool) {
	n := -1
	inputs := map[string]any{"context": convID}
	for k, x := range se {
		if x == nil {
			return runner.Unit{}, false
		}
		sort.Slice(x.episodes, func(a, b int) bool { return x.episodes[a].SampleIdx < x.episodes[b].SampleIdx })
		if n < 0 || len(x.episodes) < n {
			n = len(x.episodes)
		}
		sort.Strings(x.units)
		inputs[systems[k]] = x.units
	}
	w := &work{targets: map[string]target{}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s#%d", convID, i)
		it := spec.Item{ID: id, Kind: spec.KindComparison, Seed: s.seed(id), Metadata: map[string]string{"conv_id": convID}}
		t := target{systems: map[string]string{}, context: convID}
		for k, x := range se {
			e := x.episodes[i]
			aid := fmt.Sprintf("e%d", e.ID)
			it.Alternatives = append(it.Alternatives, spec.Alternative{ID: aid, System: systems[k], Turns: EpisodeTurns(e.Turns)})
			t.systems[aid] = systems[k]
			t.order = append(t.order, systems[k])
			t.episodes = append(t.episodes, e.ID)
		}
		w.items = append(w.items, it)
		w.targets[id] = t
	}
	return runner.Unit{Key: convID, Inputs: inputs, Payload: w}, n > 0
}
