package runner

import "slices"

// Slice restricts stages to their first Contexts evaluation contexts: a
// racing sweep's round. Units keep the fingerprints they have in a full
// run (the dataset is not cut, only which of its units run), so the
// units of a round are reused by every later, longer round and by a full
// run of the same variant: promotion costs only the new contexts.
type Slice struct {
	// Stages are the stage keys sliced (the evaluation episodes stages);
	// stages that read them see only the sliced units' results.
	Stages []string `json:"stages"`
	// Contexts is how many contexts each sliced stage runs, in the order
	// the stage lists its units.
	Contexts int `json:"contexts"`
}

// covers reports whether the slice cuts stage key.
func (s *Slice) covers(key string) bool { return s != nil && slices.Contains(s.Stages, key) }

// apply returns the units of stage key that the slice keeps.
func (s *Slice) apply(key string, units []Unit) []Unit {
	if !s.covers(key) {
		return units
	}
	seen := map[string]bool{}
	var out []Unit
	for _, u := range units {
		c := u.Context
		if c == "" {
			c = u.Key
		}
		if !seen[c] {
			if len(seen) == s.Contexts {
				continue
			}
			seen[c] = true
		}
		out = append(out, u)
	}
	return out
}

// contextsOf counts the distinct contexts of units.
func contextsOf(units []Unit) int {
	seen := map[string]bool{}
	for _, u := range units {
		c := u.Context
		if c == "" {
			c = u.Key
		}
		seen[c] = true
	}
	return len(seen)
}
