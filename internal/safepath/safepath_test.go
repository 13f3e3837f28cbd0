package safepath

import (
	"path/filepath"
	"testing"
)

func TestJoinRefusesNamesThatLeaveTheParent(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../victim", "../../../victim", "a/b", "/etc", `a\b`, "x\x00y"} {
		if p, err := Join("/runs/r1", bad); err == nil {
			t.Errorf("Join(/runs/r1, %q) = %q, want an error", bad, p)
		}
	}
	if _, err := Join("/runs", "r1", ".."); err == nil {
		t.Error(`Join(/runs, r1, "..") accepted ".." as a later element`)
	}
}

func TestJoinKeepsPlainNames(t *testing.T) {
	got, err := Join("/runs/r1", "speaker_grpo", "attempt-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/runs/r1", "speaker_grpo", "attempt-1"); got != want {
		t.Errorf("Join = %q, want %q", got, want)
	}
}
