package dialogue

import (
	"encoding/json"
	"testing"
)

// trajectory is a record's emotion trajectory (nil when it has none).
func trajectory(t testing.TB, ep Episode) []string {
	t.Helper()
	var out []string
	if len(ep.EmotionTrajectory) > 0 {
		if err := json.Unmarshal(ep.EmotionTrajectory, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// bigFive is the user's Big Five profile a record carries (nil: none).
func bigFive(t testing.TB, ep Episode) *BigFive {
	t.Helper()
	if len(ep.UserBigFive) == 0 {
		return nil
	}
	var b BigFive
	if err := json.Unmarshal(ep.UserBigFive, &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

// extraString is a string key of a record's extras ("" when absent).
func extraString(ep Episode, key string) string {
	var s string
	_ = json.Unmarshal(ep.Extra[key], &s)
	return s
}

// deref reads an optional record string ("" when absent).
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
