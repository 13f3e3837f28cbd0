package pairs

import "testing"

func TestSelectMarginAndCap(t *testing.T) {
	// Scores 4.5, 4.0, 3.2, 3.2: gaps 0.5, 1.3, 1.3, 0.8, 0.8, 0.
	c := []Scored{{1, 4.5}, {2, 4.0}, {3, 3.2}, {4, 3.2}}
	got := Select(c, 0.5, 0)
	want := []Pair{{c[0], c[2]}, {c[0], c[3]}, {c[1], c[2]}, {c[1], c[3]}, {c[0], c[1]}}
	if len(got) != len(want) {
		t.Fatalf("got %d pairs %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Select(c, 0.9, 0); len(got) != 2 {
		t.Errorf("margin 0.9: %d pairs, want 2 (the 1.3 gaps)", len(got))
	}
	if got := Select(c, 0, 0); len(got) != 5 {
		t.Errorf("margin 0: %d pairs, want 5 (the equal 3.2 scores never pair)", len(got))
	}
	if got := Select(c, 0.5, 3); len(got) != 3 || got[2] != want[2] {
		t.Errorf("cap 3: %v, want the 3 largest gaps", got)
	}
	k := []Scored{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}
	if got := Select(k, 0, 0); len(got) != 10 {
		t.Errorf("K=5 distinct scores: %d pairs, want K(K-1)/2 = 10", len(got))
	}
}
