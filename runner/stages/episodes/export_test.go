package episodes_test

import (
	"fmt"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
)

// checkRecord asserts the MASCOT JSONL fields every record carries and
// returns the number of user turns it has.
func checkRecord(t *testing.T, rec map[string]any, system, dataset, personaSet string) int {
	t.Helper()
	where := fmt.Sprint(rec["conv_id"])
	requireKeys(t, where, rec, "conv_id", "turns", "agents_spoken", "metadata")
	meta, _ := rec["metadata"].(map[string]any)
	requireKeys(t, where+" metadata", meta, "schema_version", "system", "dataset", "persona_set",
		"director_model", "speaker_model", "user_model", "rubric_version")
	want := map[string]any{"schema_version": "1.0", "system": system, "dataset": dataset, "persona_set": personaSet,
		"director_model": "Qwen/Qwen3-8B", "speaker_model": "Qwen/Qwen3-8B", "user_model": "Qwen/Qwen3-8B",
		"rubric_version": "paper_v1"}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("%s: metadata %s = %v, want %v", where, k, meta[k], v)
		}
	}
	turns, _ := rec["turns"].([]any)
	if len(turns) == 0 {
		t.Fatalf("%s: no turns", where)
	}
	users, agents := 0, 0
	for i, x := range turns {
		tu := x.(map[string]any)
		tw := fmt.Sprintf("%s turn %d", where, i)
		requireKeys(t, tw, tu, "turn_idx", "round_id", "turn_type", "response")
		if tu["turn_idx"] != float64(i) {
			t.Errorf("%s: turn_idx %v", tw, tu["turn_idx"])
		}
		if tu["turn_type"] == "user" {
			users++
			continue
		}
		agents++
		requireKeys(t, tw, tu, "directive", "agent_name", "directive_output")
		d, _ := tu["directive"].(map[string]any)
		requireKeys(t, tw+" directive", d, "agent_name", "action", "tone")
	}
	if agents == 0 {
		t.Errorf("%s: no agent turn", where)
	}
	return users
}

func TestMascotESConvBigFiveExport(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), "", `ep: {kind: "episodes", dataset: "es", roster: "support", turns: 3,
		persona_set: "big5", user_response_probability: 1}`)
	sum := h.run(spec, false)
	if sum.Ran != 3 {
		t.Fatalf("ran %d units, want 3 (3 contexts x 1 sample)", sum.Ran)
	}
	if n := h.count(`SELECT COUNT(*) FROM episodes`); n != 3 {
		t.Fatalf("%d episodes, want 3", n)
	}
	if n := h.count(`SELECT COUNT(*) FROM turns WHERE turn_type = 'user'`); n < 3 {
		t.Fatalf("%d user turns with reply probability 1, want at least 3", n)
	}
	recs := h.export(sum.RunID)
	if len(recs) != 3 {
		t.Fatalf("exported %d records, want 3", len(recs))
	}
	for _, rec := range recs {
		users := checkRecord(t, rec, "mascot", "esconv", "big5")
		requireKeys(t, "esconv record", rec, "initial_emotion", "final_emotion", "emotion_trajectory", "user_big_five")
		b5, _ := rec["user_big_five"].(map[string]any)
		requireKeys(t, "user_big_five", b5, "openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
		traj, _ := rec["emotion_trajectory"].([]any)
		if len(traj) != users+1 {
			t.Errorf("emotion_trajectory has %d entries, want 1 + %d user turns", len(traj), users)
		}
		if len(traj) > 0 && rec["final_emotion"] != traj[len(traj)-1] {
			t.Errorf("final_emotion %v is not the trajectory's last %v", rec["final_emotion"], traj[len(traj)-1])
		}
		if users == 0 {
			t.Errorf("%v: no user turn with reply probability 1", rec["conv_id"])
		}
		// The situation the simulated user came with travels with the
		// conversation (the rater page shows it).
		meta, _ := rec["metadata"].(map[string]any)
		if sit, _ := meta["situation"].(string); len(sit) < 20 {
			t.Errorf("%v: metadata situation %q, want the sample's situation", rec["conv_id"], meta["situation"])
		}
	}
	again := h.run(spec, false)
	if again.Ran != 0 || again.Cached != 3 {
		t.Fatalf("rerun ran %d cached %d, want 0 and 3", again.Ran, again.Cached)
	}
	if n := h.count(`SELECT COUNT(*) FROM episodes`); n != 3 {
		t.Fatalf("after rerun %d episodes, want 3", n)
	}
}

func TestMascotQMSumExport(t *testing.T) {
	srv := fakevllm.Start(t, fakevllm.Options{})
	h := newHarness(t)
	spec := writeSpec(t, srv.URL(), "", `ep: {kind: "episodes", dataset: "qm", roster: "meet", turns: 3,
		samples_per_context: 2, user_response_probability: 1}`)
	sum := h.run(spec, false)
	units := h.count(`SELECT COUNT(*) FROM episodes`)
	if units != sum.Ran || units < 2 {
		t.Fatalf("%d episodes from %d units, want one per unit and at least 2", units, sum.Ran)
	}
	if n := h.count(`SELECT COUNT(DISTINCT sample_idx) FROM episodes`); n != 2 {
		t.Fatalf("%d distinct sample indexes, want 2", n)
	}
	for _, rec := range h.export(sum.RunID) {
		checkRecord(t, rec, "mascot", "qmsum", "default")
		requireKeys(t, "qmsum record", rec, "id", "start_idx", "meeting")
		if rec["id"] != rec["conv_id"] {
			t.Errorf("id %v differs from conv_id %v", rec["id"], rec["conv_id"])
		}
		if m, _ := rec["meeting"].(string); m == "" {
			t.Errorf("%v: empty meeting", rec["id"])
		}
		if _, ok := rec["user_big_five"]; ok {
			t.Errorf("%v: QMSum record carries user_big_five", rec["id"])
		}
	}
}
