package candidates

import "testing"

// TestTogetherOnlyWhenTheUnitsFitTheSlots: a unit's single requests go
// out at once only when every unit's fit in the endpoint's slots (and
// there are several, without n).
func TestTogetherOnlyWhenTheUnitsFitTheSlots(t *testing.T) {
	for _, c := range []struct {
		units, k, slots int
		supportsN, want bool
	}{
		{units: 9, k: 4, slots: 64, want: true},
		{units: 16, k: 4, slots: 64, want: true},
		{units: 17, k: 4, slots: 64, want: false},
		{units: 600, k: 4, slots: 64, want: false},
		{units: 9, k: 4, slots: 64, supportsN: true, want: false},
		{units: 9, k: 1, slots: 64, want: false},
		{units: 0, k: 4, slots: 64, want: false},
		{units: 9, k: 4, slots: 0, want: false},
	} {
		if got := together(c.units, c.k, c.slots, c.supportsN); got != c.want {
			t.Errorf("together(%d units, k %d, %d slots, supports_n %v) = %v, want %v", c.units, c.k, c.slots, c.supportsN, got, c.want)
		}
	}
}
