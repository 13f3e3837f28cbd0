package nli

import (
	"fmt"

	"mascot.dev/mascot/plugins/spec"
)

// pair is two agent turns, a before b in the episode.
type pair struct{ a, b spec.Turn }

// makePairs builds the turn pairs of an episode for a pairing mode.
func makePairs(e spec.Episode, mode string, inferRounds bool) ([]pair, error) {
	var agents []spec.Turn
	rounds := map[int]int{} // position in agents -> round
	round, missing := 0, false
	for _, t := range e.Turns {
		if t.Role == "user" {
			round++
			continue
		}
		if t.RoundID == nil {
			missing = true
		}
		agents = append(agents, t)
		if t.RoundID != nil && !inferRounds {
			rounds[len(agents)-1] = *t.RoundID
		} else {
			rounds[len(agents)-1] = round
		}
	}
	var out []pair
	switch mode {
	case "all-pairs":
		for i := range agents {
			for j := i + 1; j < len(agents); j++ {
				out = append(out, pair{agents[i], agents[j]})
			}
		}
	case "adjacent-agent":
		for i := 0; i+1 < len(agents); i++ {
			if agents[i].Speaker != agents[i+1].Speaker {
				out = append(out, pair{agents[i], agents[i+1]})
			}
		}
	case "same-round":
		if missing && !inferRounds {
			return nil, fmt.Errorf("turns without round_id: same-round pairing needs round ids, or allow_round_inference (rounds then split at user turns)")
		}
		for i := range agents {
			for j := i + 1; j < len(agents); j++ {
				if rounds[i] == rounds[j] {
					out = append(out, pair{agents[i], agents[j]})
				}
			}
		}
	}
	return out, nil
}
