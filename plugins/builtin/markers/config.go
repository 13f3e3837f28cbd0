package markers

import (
	"fmt"
	"strconv"

	"mascot.dev/mascot/plugins/spec"
)

// Config is the markers judge's configuration.
type Config struct {
	// Markers lists marker words by agent name; an agent not listed takes
	// the content words of its persona card (Item.Persona, or the
	// "personas" metadata of an episode item).
	Markers map[string][]string `json:"markers"`
	// MarkerTarget is how many distinct marker words earn the top persona
	// score (default 3).
	MarkerTarget int `json:"marker_target"`
	// Criteria restricts the criteria scored (ids); empty = all of the
	// item's level.
	Criteria []string `json:"criteria"`
	// StageOrder lists companions in the order of the support stages
	// they serve (ESConv's exploration and comforting before action: a
	// validator, then a reframer, then an action coach); support_order is
	// scored only when it is given.
	StageOrder []string `json:"stage_order"`
}

// Validate implements sdk.Validator and fills defaults.
func (c *Config) Validate() []spec.Diagnostic {
	var ds []spec.Diagnostic
	switch {
	case c.MarkerTarget == 0:
		c.MarkerTarget = 3
	case c.MarkerTarget < 0:
		ds = append(ds, spec.AttrError([]string{"marker_target"}, "marker_target must be at least 1", strconv.Itoa(c.MarkerTarget)))
	}
	known := map[string]bool{}
	for _, cr := range Criteria() {
		known[cr.ID] = true
	}
	for i, id := range c.Criteria {
		if !known[id] {
			ds = append(ds, spec.AttrError([]string{"criteria", strconv.Itoa(i)}, "unknown criterion",
				fmt.Sprintf("%q is not a criterion of the markers judge", id)))
		}
	}
	seen := map[string]bool{}
	for i, a := range c.StageOrder {
		if a == "" || seen[a] {
			ds = append(ds, spec.AttrError([]string{"stage_order", strconv.Itoa(i)}, "stage_order names each companion once", fmt.Sprintf("%q", a)))
		}
		seen[a] = true
	}
	for agent, ws := range c.Markers {
		if len(words(joinWords(ws))) == 0 {
			ds = append(ds, spec.AttrError([]string{"markers", agent}, "no marker words", "give at least one word"))
		}
	}
	return ds
}
