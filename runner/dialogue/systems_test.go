package dialogue

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// checkSchema marshals ep and checks every MASCOT JSONL field by name and
// JSON type.
func checkSchema(ep Episode, emotional bool) error {
	b, err := json.Marshal(ep)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	want := map[string]string{"conv_id": "string", "turns": "array", "agents_spoken": "object", "metadata": "object"}
	if emotional {
		for k, v := range map[string]string{"initial_emotion": "string", "final_emotion": "string", "emotion_trajectory": "array", "user_big_five": "object|null"} {
			want[k] = v
		}
	} else {
		for k, v := range map[string]string{"id": "string", "start_idx": "number", "meeting": "string"} {
			want[k] = v
		}
	}
	if err := checkKeys("record", m, want); err != nil {
		return err
	}
	md := m["metadata"].(map[string]any)
	if err := checkKeys("metadata", md, map[string]string{"schema_version": "string", "system": "string", "dataset": "string",
		"persona_set": "string", "director_model": "string", "speaker_model": "string", "user_model": "string", "rubric_version": "string"}); err != nil {
		return err
	}
	if md["schema_version"] != "1.0" || md["rubric_version"] != "paper_v1" {
		return fmt.Errorf("metadata versions %v", md)
	}
	turns := m["turns"].([]any)
	if len(turns) == 0 {
		return fmt.Errorf("no turns")
	}
	for i, raw := range turns {
		tr := raw.(map[string]any)
		base := map[string]string{"turn_idx": "number", "round_id": "number", "turn_type": "string", "response": "string"}
		if tr["turn_type"] == "user" {
			if err := checkKeys(fmt.Sprintf("user turn %d", i), tr, base); err != nil {
				return err
			}
			if _, ok := tr["directive"]; ok {
				return fmt.Errorf("user turn %d carries a directive", i)
			}
			continue
		}
		base["directive"], base["agent_name"], base["directive_output"] = "object", "string", "string"
		if err := checkKeys(fmt.Sprintf("agent turn %d", i), tr, base); err != nil {
			return err
		}
		if err := checkKeys("directive", tr["directive"].(map[string]any), map[string]string{"agent_name": "string", "action": "string", "tone": "string"}); err != nil {
			return err
		}
		if tr["response"] == "" {
			return fmt.Errorf("agent turn %d has an empty response", i)
		}
	}
	return nil
}

func checkKeys(what string, m map[string]any, want map[string]string) error {
	for k, typ := range want {
		v, ok := m[k]
		if !ok {
			return fmt.Errorf("%s lacks %q", what, k)
		}
		got := "null"
		switch v.(type) {
		case string:
			got = "string"
		case float64:
			got = "number"
		case []any:
			got = "array"
		case map[string]any:
			got = "object"
		}
		if typ != got && !(typ == "object|null" && (got == "object" || got == "null")) {
			return fmt.Errorf("%s.%s is %s, want %s", what, k, got, typ)
		}
	}
	return nil
}

func TestEverySystemSchemaComplete(t *testing.T) {
	for _, system := range Systems() {
		for _, meeting := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/meeting=%v", system, meeting), func(t *testing.T) {
				f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
				cfg := esConfig(system)
				s := esSample()
				if meeting {
					cfg.Roster, cfg.UserSim.Enabled = MeetingRoster(), false
					f.reply = scripted(MeetingRoster())
					s = meetingSample()
				}
				ep, err := RunEpisode(context.Background(), f, cfg, s)
				if err != nil {
					t.Fatal(err)
				}
				if ep.Counters != (Counters{}) || ep.Skipped {
					t.Fatalf("counters %+v skipped %v", ep.Counters, ep.Skipped)
				}
				if err := checkSchema(ep, !meeting); err != nil {
					t.Fatal(err)
				}
				if ep.Metadata.System != system || ep.Metadata.Dataset != s.Dataset {
					t.Fatalf("metadata %+v", ep.Metadata)
				}
				if meeting && (extraString(ep, "id") != "qm-1" || ep.StartIdx == nil || *ep.StartIdx != 3 ||
					deref(ep.Meeting) != "ES2004a") {
					t.Fatalf("meeting fields %s %v %v", ep.Extra["id"], ep.StartIdx, ep.Meeting)
				}
				agents := 0
				for _, tr := range ep.Turns {
					if tr.TurnType == TurnAgent {
						agents++
					}
				}
				if agents != cfg.Turns {
					t.Fatalf("%d agent turns, want %d", agents, cfg.Turns)
				}
				// Round trip: the export decodes back into the same episode.
				b, _ := json.Marshal(ep)
				var back Episode
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				b2, _ := json.Marshal(back)
				if string(b) != string(b2) {
					t.Fatalf("export does not round-trip:\n%s\n%s", b, b2)
				}
			})
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, system := range Systems() {
		run := func(seed int64) (string, []string) {
			f := &fakeChatter{reply: scripted(EmotionalSupportRoster())}
			cfg := esConfig(system)
			cfg.Seed = seed
			ep, err := RunEpisode(context.Background(), f, cfg, esSample())
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(ep)
			var keys []string
			for _, c := range f.calls {
				keys = append(keys, fmt.Sprintf("%s#%d", c.CacheKey, *c.Seed))
			}
			return string(b), keys
		}
		a, ka := run(1)
		b, kb := run(1)
		if a != b || !reflect.DeepEqual(ka, kb) {
			t.Errorf("%s: same seed, different episodes or requests", system)
		}
		seen := map[string]bool{}
		for _, k := range ka {
			if seen[k] {
				t.Errorf("%s: cache key %s used twice", system, k)
			}
			seen[k] = true
		}
		if c, _ := run(2); c == a {
			t.Errorf("%s: seeds 1 and 2 gave identical episodes", system)
		}
	}
}
