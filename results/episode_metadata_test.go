package results

import (
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

// TestEpisodeMetadataJSON: an episode's MetadataJSON is kept as it is,
// in the row and in bulk, unless the store fills in a default of the
// block (then the block is encoded with it); agents_spoken is stored as
// json.Marshal writes the map.
func TestEpisodeMetadataJSON(t *testing.T) {
	s := openTemp(t)
	mustRun(t, s, "r")
	withBlock := func(conv string, system string) Episode {
		e := sampleEpisode(conv)
		e.Metadata.System, e.Metadata.Dataset, e.Metadata.SchemaVersion = system, "esconv", jsonl.SchemaVersion
		// Not the block's encoding, so that the row shows which was kept.
		e.MetadataJSON = `{"kept":"` + conv + `"}`
		e.AgentsSpoken = map[string]int{"The <Anchor>": 2, "b": 0}
		return e
	}
	err := s.CommitUnit(t.Context(), Unit{Fingerprint: "u", Kind: "episodes", StageKey: "st", RunID: "r"}, func(tx *Tx) error {
		for i, e := range []Episode{withBlock("one", "mascot"), withBlock("defaulted", "")} {
			e.Idx = i
			if _, err := tx.InsertEpisode(e); err != nil {
				return err
			}
		}
		b, err := tx.BulkEpisodes()
		if err != nil {
			return err
		}
		for i, e := range []Episode{withBlock("bulk", "mascot"), withBlock("bulk-defaulted", "")} {
			e.Idx = 10 + i
			if _, err := b.Insert(e); err != nil {
				return err
			}
		}
		return b.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Reader().QueryContext(t.Context(), `SELECT conv_id, metadata_json, agents_spoken FROM episodes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var conv, meta, spoken string
		if err := rows.Scan(&conv, &meta, &spoken); err != nil {
			t.Fatal(err)
		}
		n++
		if spoken != `{"The \u003cAnchor\u003e":2,"b":0}` {
			t.Errorf("%s: agents_spoken %s", conv, spoken)
		}
		if conv == "one" || conv == "bulk" {
			if meta != `{"kept":"`+conv+`"}` {
				t.Errorf("%s: metadata %s, not the block it was given", conv, meta)
			}
			continue
		}
		e := withBlock(conv, "mascot")
		want, err := jsonl.EncodeMetadata(e.Metadata)
		if err != nil || meta != string(want) {
			t.Errorf("%s: metadata %s, want the block with its default system %s (%v)", conv, meta, want, err)
		}
	}
	if n != 4 {
		t.Fatalf("%d episodes stored", n)
	}
}
