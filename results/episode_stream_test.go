package results

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestParseDirectiveAgreesWithJSON: what the directive fast path accepts
// it reads as encoding/json does, and it leaves every other form to it.
func TestParseDirectiveAgreesWithJSON(t *testing.T) {
	for _, c := range []struct {
		text string
		fast bool
	}{
		{`{"agent_name":"The Anchor","action":"validate","tone":"warm"}`, true},
		{`{"agent_name":"","action":"","tone":""}`, true},
		{`{"agent_name":"A","action":"say \"hi\"","tone":"t"}`, false},
		{`{"agent_name":"A","action":"\u003cb\u003e","tone":"t"}`, false},
		{`{"agent_name":"Ä","action":"a","tone":"t"}`, false},
		{`{"action":"a","agent_name":"A","tone":"t"}`, false},
		{`{"agent_name":"A","action":"a","tone":"t","x":1}`, false},
		{`{"agent_name": "A", "action": "a", "tone": "t"}`, false},
	} {
		var got, want Directive
		ok := parseDirective(c.text, &got)
		if ok != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.text, ok, c.fast)
		}
		if err := json.Unmarshal([]byte(c.text), &want); err != nil {
			t.Fatal(err)
		}
		if ok && got != want {
			t.Errorf("%s: %+v, want %+v", c.text, got, want)
		}
	}
}

// TestStreamedEpisodesEqualStoredOnes: the raw-driver stream gives each
// episode exactly as GetEpisode reads it (turns, directives, metadata,
// extras, optional fields), in id order, with its stage.
func TestStreamedEpisodesEqualStoredOnes(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	mustRun(t, s, "r")
	for i, mode := range []string{ModeEval, ModeIndependent, ModeEval} {
		err := s.CommitUnit(ctx, Unit{Fingerprint: "u" + mode + string(rune('a'+i)), Kind: "episodes", StageKey: "st-" + mode,
			RunID: "r"}, func(tx *Tx) error {
			e := sampleEpisode("c" + string(rune('a'+i)))
			e.Mode = mode
			e.Meeting, e.StartIdx = strp("ES2004a"), intp(i)
			e.AgentsSpoken = map[string]int{"The Anchor": i}
			e.Extra = map[string]json.RawMessage{"x": json.RawMessage(`[1,2]`)}
			e.Metadata.Extra = map[string]json.RawMessage{"seed": json.RawMessage(`7`)}
			e.Turns[0].Directive.Action = `quote " and <b>`
			e.Turns[1].Extra = map[string]json.RawMessage{"emotion": json.RawMessage(`"sad"`)}
			_, err := tx.InsertEpisode(e)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, training := range []bool{false, true} {
		var ids []int64
		err := s.ForEachStagedEpisode(ctx, "r", training, func(e *Episode, stage string) error {
			want, err := s.GetEpisode(ctx, e.ID)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(e, want) {
				t.Errorf("streamed episode %d:\n got %+v\nwant %+v", e.ID, e, want)
			}
			if stage != "st-"+e.Mode {
				t.Errorf("episode %d: stage %q", e.ID, stage)
			}
			ids = append(ids, e.ID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := 2 + map[bool]int{true: 1}[training]; len(ids) != n || ids[0] >= ids[len(ids)-1] {
			t.Errorf("training %v: episodes %v, want %d in id order", training, ids, n)
		}
	}
}

// TestRowDecoderForgets: a stream whose metadata differs from episode to
// episode keeps at most maxDecoded blocks, and decodes each right.
func TestRowDecoderForgets(t *testing.T) {
	d := newRowDecoder()
	for i := range 2*maxDecoded + 3 {
		raw := fmt.Sprintf(`{"schema_version":"1.0","system":"s","dataset":"d","persona_set":"p","director_model":"m","speaker_model":"m","user_model":"u","rubric_version":"r","situation":"%d"}`, i%(maxDecoded+1))
		m, err := d.metadata(raw)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"%d"`, i%(maxDecoded+1)); string(m.Extra["situation"]) != want || m.System != "s" {
			t.Fatalf("block %d read as %+v", i, m)
		}
		if len(d.meta) > maxDecoded {
			t.Fatalf("%d blocks remembered after %d", len(d.meta), i+1)
		}
	}
}
