package report

import (
	"context"
	"testing"
)

// TestColumnMeansPoolRows: a column's summary is the mean over every
// episode of the run (N-weighted over the split rows), not the last row's.
// Fixture A: positive 4 episodes, negative 1 (see fixtureA).
func TestColumnMeansPoolRows(t *testing.T) {
	s := openStore(t)
	addRun(t, s, "A", fixtureA)
	rep, err := Build(context.Background(), s, []string{"A"}, Options{Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	m := ColumnMeans(rep)
	near(t, "agent overall", m["agent overall"], (75+50+25+62.5+50)/5.0)
	near(t, "empathetic_support", m["empathetic_support"], (75+75+0+25+50)/5.0)
	near(t, "collective overall", m["collective overall"], (87.5+50+50+0+50)/5.0)
	if len(m) != 5 {
		t.Errorf("keys %v, want 2 criteria, fidelity and two overalls", m)
	}
}
