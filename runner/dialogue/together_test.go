package dialogue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mascot.dev/mascot/llm"
)

// meetingChatter is a fakeChatter whose calls each wait, up to patience,
// until want of them are in flight, and which records the most that were.
type meetingChatter struct {
	fakeChatter
	want     int
	patience time.Duration

	mu       sync.Mutex
	in, peak int
	met      chan struct{}
}

func newMeeting(reply func(llm.Request, int) (string, error), want int, patience time.Duration) *meetingChatter {
	return &meetingChatter{fakeChatter: fakeChatter{reply: reply}, want: want, patience: patience, met: make(chan struct{})}
}

func (m *meetingChatter) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	m.in++
	m.peak = max(m.peak, m.in)
	if m.in == m.want {
		close(m.met)
	}
	m.mu.Unlock()
	select {
	case <-m.met:
	case <-time.After(m.patience):
	}
	m.mu.Lock()
	m.in--
	m.mu.Unlock()
	return m.fakeChatter.Chat(ctx, req)
}

// TestTogetherSendsAUnitsRequestsAtOnce: with Together a unit's k single
// requests are in flight together and give the candidates, counters and last error that one after another
// give (a failed draw and an empty one among them); strict mode, or a
// stage that leaves Together off, sends them in turn.
func TestTogetherSendsAUnitsRequestsAtOnce(t *testing.T) {
	roster := EmotionalSupportRoster()
	reply := func(req llm.Request, i int) (string, error) {
		switch {
		case strings.HasSuffix(req.CacheKey, "|s1"):
			return "", errBoom
		case strings.HasSuffix(req.CacheKey, "|s4"):
			return " ", nil
		}
		return scripted(roster)(req, i)
	}
	cfg := CandidateConfig{K: 6, Seed: 5, Roster: roster, Speaker: Sampling{Model: "spk"}, Together: true}
	inTurn := &fakeChatter{reply: reply}
	want, err := GenerateCandidates(context.Background(), inTurn, cfg, esSample(), roster[1])
	if err != nil {
		t.Fatal(err)
	}
	m := newMeeting(reply, cfg.K, 5*time.Second)
	got, err := GenerateCandidates(context.Background(), m, cfg, esSample(), roster[1])
	if err != nil {
		t.Fatal(err)
	}
	if m.peak != cfg.K {
		t.Errorf("at most %d of the unit's %d requests were in flight together", m.peak, cfg.K)
	}
	if !slices.Equal(got.Candidates, want.Candidates) || got.Counters != want.Counters ||
		got.Counters != (Counters{NumGenerationFailures: 1, NumEmptyResponses: 1}) || !errors.Is(got.LastError, errBoom) {
		t.Errorf("together: %+v, %+v, %v\nin turn: %+v, %+v, %v",
			got.Candidates, got.Counters, got.LastError, want.Candidates, want.Counters, want.LastError)
	}
	keys := func(cs []llm.Request) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.CacheKey+"|"+c.Role)
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(keys(m.calls), keys(inTurn.calls)) {
		t.Errorf("requests together %v, in turn %v", keys(m.calls), keys(inTurn.calls))
	}

	for name, c := range map[string]CandidateConfig{
		"strict":           {K: 6, Roster: roster, Together: true, Strict: true},
		"without Together": {K: 6, Roster: roster},
	} {
		ms := newMeeting(scripted(roster), c.K, 20*time.Millisecond)
		if _, err := GenerateCandidates(context.Background(), ms, c, esSample(), roster[1]); err != nil {
			t.Fatal(err)
		}
		if ms.peak != 1 {
			t.Errorf("%s: %d requests in flight together; want them in turn", name, ms.peak)
		}
	}
}
