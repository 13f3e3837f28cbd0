package results

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// TestClaimAndStartUnits: a batch claims and starts the free units for its
// run, leaves a unit a live run holds to that run and a done unit to
// nobody, as one claim at a time would; a batch with a bad unit claims
// none of its units.
func TestClaimAndStartUnits(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	liveElsewhere(t, s, "a", "b")
	unit := func(fp, run string) Unit { return Unit{Fingerprint: fp, Kind: "k", StageKey: "st", RunID: run} }
	if h, err := s.ClaimAndStartUnit(ctx, unit("held", "a")); err != nil || h != "a" {
		t.Fatalf("claiming held for a: %q, %v", h, err)
	}
	if h, err := s.ClaimAndStartUnit(ctx, unit("done", "a")); err != nil || h != "a" {
		t.Fatalf("claiming done for a: %q, %v", h, err)
	}
	if err := s.CommitUnit(ctx, unit("done", "a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseClaim(ctx, "done", "a"); err != nil {
		t.Fatal(err)
	}
	holders, err := s.ClaimAndStartUnits(ctx, []Unit{unit("free1", "b"), unit("held", "b"), unit("done", "b"), unit("free2", "b")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "a", "", "b"}; !slices.Equal(holders, want) {
		t.Fatalf("holders %q, want %q", holders, want)
	}
	claims := func() map[string]string {
		rows, err := s.r.Query(`SELECT fingerprint, run_id FROM unit_claims`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var fp, run string
			if err := rows.Scan(&fp, &run); err != nil {
				t.Fatal(err)
			}
			out[fp] = run
		}
		return out
	}
	if got, want := claims(), map[string]string{"free1": "b", "held": "a", "free2": "b"}; !maps.Equal(got, want) {
		t.Fatalf("claims %v, want %v", got, want)
	}
	for _, fp := range []string{"free1", "free2"} {
		var state string
		var attempts int
		if err := s.r.QueryRow(`SELECT state, attempts FROM units WHERE fingerprint = ?`, fp).Scan(&state, &attempts); err != nil {
			t.Fatal(err)
		}
		if state != "running" || attempts != 1 {
			t.Errorf("unit %s: %s after %d attempts, want running after 1", fp, state, attempts)
		}
	}

	if _, err := s.ClaimAndStartUnits(ctx, []Unit{unit("free3", "b"), unit("", "b")}); err == nil {
		t.Fatal("a batch with an empty fingerprint was claimed")
	}
	if _, ok := claims()["free3"]; ok {
		t.Error("free3 is claimed after its batch failed")
	}
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM units WHERE fingerprint = 'free3'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("free3 has %d unit rows (%v) after its batch failed, want 0", n, err)
	}
}
