package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/labels"
)

func ids(samples []Sample) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = s.ID
	}
	return out
}

func TestSeededSampling(t *testing.T) {
	isolate(t)
	spec := Spec{Name: QMSum, Path: filepath.Join(sharedDatasets(t), "qmsum", "test.jsonl"), Limit: 10, Seed: 7}
	a, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Load(spec)
	if len(a) != 10 || !slices.Equal(ids(a), ids(b)) {
		t.Fatalf("same seed gave %v and %v", ids(a), ids(b))
	}
	all, _ := Load(Spec{Name: QMSum, Path: spec.Path})
	pos := map[string]int{}
	for i, s := range all {
		pos[s.ID] = i
	}
	for i := 1; i < len(a); i++ {
		if pos[a[i-1].ID] >= pos[a[i].ID] {
			t.Errorf("subset not in dataset order: %v", ids(a))
		}
	}
	spec.Seed = 8
	c, _ := Load(spec)
	if slices.Equal(ids(a), ids(c)) {
		t.Errorf("seeds 7 and 8 picked the same subset %v", ids(a))
	}
	spec.Seed, spec.Limit = 7, 25
	d, _ := Load(spec)
	for _, id := range ids(a) {
		if !slices.Contains(ids(d), id) {
			t.Errorf("limit 25 dropped %s that limit 10 kept", id)
		}
	}
	spec.Limit = 10000
	e, _ := Load(spec)
	if len(e) != len(all) {
		t.Errorf("limit above size: %d, want %d", len(e), len(all))
	}
}

func TestSelectFiltersThenLimits(t *testing.T) {
	var in []Sample
	for i := range 40 {
		v := []string{labels.Positive, labels.Negative, labels.Neutral, ""}[i%4]
		in = append(in, Sample{ID: fmt.Sprintf("s%02d", i), Valence: v, Emotion: fmt.Sprint("e", i%3), Domain: labels.DomainProduct})
	}
	got := Select(in, Filters{Valence: []string{"positive", "neutral"}}, 0, 0)
	if len(got) != 20 {
		t.Errorf("valence filter kept %d, want 20", len(got))
	}
	got = Select(in, Filters{Valence: []string{"negative"}, Emotion: []string{"e1"}}, 0, 0)
	for _, s := range got {
		if s.Valence != labels.Negative || s.Emotion != "e1" {
			t.Errorf("kept %+v", s)
		}
	}
	if len(got) != 4 { // i ≡ 1 mod 12
		t.Errorf("valence+emotion kept %d, want 4", len(got))
	}
	got = Select(in, Filters{Domain: []string{"academic"}}, 0, 0)
	if len(got) != 0 {
		t.Errorf("domain filter kept %d, want 0", len(got))
	}
	got = Select(in, Filters{Valence: []string{"positive"}}, 4, 1)
	if len(got) != 4 {
		t.Fatalf("limit after filter: %d", len(got))
	}
	for _, s := range got {
		if s.Valence != labels.Positive {
			t.Errorf("limit picked a filtered-out sample %+v", s)
		}
	}
	// The ranking depends on the seed and ids only, not on other samples.
	sub := Select(in[:20], Filters{}, 3, 99)
	var keyed []string
	for _, s := range in[:20] {
		keyed = append(keyed, fmt.Sprintf("%020d %s", sampleKey(99, s.ID), s.ID))
	}
	slices.Sort(keyed)
	var want []string
	for _, k := range keyed[:3] {
		want = append(want, k[21:])
	}
	slices.Sort(want)
	if !slices.Equal(ids(sub), want) {
		t.Errorf("subset %v, want the 3 lowest keys %v", ids(sub), want)
	}
}

func TestSpecValidation(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "squad"}, `unknown name "squad"`},
		{Spec{Name: QMSum, Limit: -1}, "limit -1 is negative"},
		{Spec{Name: QMSum, Filters: Filters{Domain: []string{"sports"}}}, `unknown domain "sports"`},
		{Spec{Name: ESConv, Filters: Filters{Valence: []string{"happy"}}}, `unknown valence "happy"`},
		{Spec{Name: QMSum, ContextTurns: -3}, "context_turns -3 is negative"},
	} {
		_, err := Load(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.spec, err, c.want)
		}
	}
}
