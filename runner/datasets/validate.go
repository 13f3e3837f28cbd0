package datasets

import (
	"fmt"
	"slices"
	"strings"

	"mascot.dev/mascot/internal/labels"
)

// validate rejects a valence or domain filter that names no known group.
func (f Filters) validate() error {
	for _, v := range f.Valence {
		if !slices.Contains(labels.Valences, strings.ToLower(v)) {
			return fmt.Errorf("filtering by valence: unknown valence %q (want %s)", v, strings.Join(labels.Valences, ", "))
		}
	}
	for _, d := range f.Domain {
		if !slices.Contains(labels.Domains, strings.ToLower(d)) {
			return fmt.Errorf("filtering by domain: unknown domain %q (want %s)", d, strings.Join(labels.Domains, ", "))
		}
	}
	return nil
}
