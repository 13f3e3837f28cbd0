package schema

import "strings"

// multirunHints adds a hint to the errors a --set value with commas caused
// where the field wants a number or a list: "--set turns=2,3" reads as the
// string "2,3", and a user who wrote it most likely wanted one run per
// value, which is -m (a multirun), not --set.
func multirunHints(errs Errors, sets []string) Errors {
	for _, s := range sets {
		key, val, ok := strings.Cut(s, "=")
		if !ok || !strings.Contains(val, ",") {
			continue
		}
		for i, e := range errs {
			if e.Path != key || !strings.Contains(e.Msg, "mismatched types") {
				continue
			}
			errs[i].Msg += "; for one run per value use -m " + key + "=" + val + " (a multirun), --set sets one value"
		}
	}
	return errs
}
