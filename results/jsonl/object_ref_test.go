package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"
)

// The record codec's first encoder, kept as the reference objectEnc is
// checked against (TestObjectEncIsWriteObject): a field list of boxed
// values, merged with the extras by writeObject.

// field is one key of an ordered JSON object.
type field struct {
	key string
	val any
}

// writeObject writes fields in order, then extra's other keys sorted. An
// extra value replaces a field of the same key; keys listed under omitKey
// are left out. Values are written as json.Marshal writes them.
func writeObject(buf *bytes.Buffer, fields []field, extra map[string]json.RawMessage) error {
	var omit []string
	if raw, ok := extra[omitKey]; ok {
		if err := json.Unmarshal(raw, &omit); err != nil {
			return fmt.Errorf("decoding %s: %w", omitKey, err)
		}
	}
	buf.WriteByte('{')
	n := 0
	put := func(k string, v any) error {
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		buf.Write(append(AppendString(buf.AvailableBuffer(), k), ':'))
		return writeValue(buf, k, v)
	}
	for _, f := range fields {
		if slices.Contains(omit, f.key) {
			continue
		}
		v := f.val
		if e, ok := extra[f.key]; ok {
			v = e
		}
		if err := put(f.key, v); err != nil {
			return err
		}
	}
	if len(extra) == 0 {
		buf.WriteByte('}')
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if k != omitKey && !slices.ContainsFunc(fields, func(f field) bool { return f.key == k }) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := put(k, extra[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeValue writes one value of an object: raw JSON verbatim, a writer
// function's output, the record codec's own types without reflection, and
// anything else through json.Marshal.
func writeValue(buf *bytes.Buffer, k string, v any) error {
	switch x := v.(type) {
	case json.RawMessage:
		buf.Write(x)
	case func(*bytes.Buffer) error:
		return x(buf)
	case string:
		buf.Write(AppendString(buf.AvailableBuffer(), x))
	case int:
		buf.Write(appendJSONInt(buf.AvailableBuffer(), x))
	case *Directive:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		b := append(buf.AvailableBuffer(), `{"agent_name":`...)
		b = append(AppendString(b, x.AgentName), `,"action":`...)
		b = append(AppendString(b, x.Action), `,"tone":`...)
		buf.Write(append(AppendString(b, x.Tone), '}'))
	case map[string]int:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		b := append(buf.AvailableBuffer(), '{')
		for i, name := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendString(b, name), ':')
			b = appendJSONInt(b, x[name])
		}
		buf.Write(append(b, '}'))
	default:
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", k, err)
		}
		buf.Write(vb)
	}
	return nil
}

func metadataFields(m Metadata) []field {
	return []field{
		{"schema_version", m.SchemaVersion}, {"system", m.System}, {"dataset", m.Dataset},
		{"persona_set", m.PersonaSet}, {"director_model", m.DirectorModel}, {"speaker_model", m.SpeakerModel},
		{"user_model", m.UserModel}, {"rubric_version", m.RubricVersion},
	}
}

func turnFields(t Turn) []field {
	fs := []field{{"turn_idx", t.TurnIdx}}
	if t.RoundID != nil {
		fs = append(fs, field{"round_id", *t.RoundID})
	}
	if t.TurnType != "" {
		fs = append(fs, field{"turn_type", t.TurnType})
	}
	if t.Directive != nil {
		fs = append(fs, field{"directive", t.Directive})
	}
	fs = append(fs, field{"agent_name", t.AgentName}, field{"response", t.Response})
	if t.DirectiveOutput != nil {
		fs = append(fs, field{"directive_output", *t.DirectiveOutput})
	}
	return fs
}

// recordFields is the record's field list (the reference's).
func recordFields(e *Record) ([]field, error) {
	idKey := e.IDField
	if idKey == "" {
		idKey = "conv_id"
	}
	var idVal any = e.ConvID
	if len(e.IDRaw) > 0 {
		idVal = e.IDRaw
	}
	fs := []field{{idKey, idVal}}
	if e.StartIdx != nil {
		fs = append(fs, field{"start_idx", *e.StartIdx})
	}
	if e.Meeting != nil {
		fs = append(fs, field{"meeting", *e.Meeting})
	}
	turns := func(buf *bytes.Buffer) error {
		buf.WriteByte('[')
		for i, t := range e.Turns {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeObject(buf, turnFields(t), t.Extra); err != nil {
				return fmt.Errorf("encoding turn %d: %w", t.TurnIdx, err)
			}
		}
		buf.WriteByte(']')
		return nil
	}
	fs = append(fs, field{"turns", turns})
	if e.AgentsSpoken != nil {
		fs = append(fs, field{"agents_spoken", e.AgentsSpoken})
	}
	var meta bytes.Buffer
	if err := writeObject(&meta, metadataFields(e.Metadata), e.Metadata.Extra); err != nil {
		return nil, err
	}
	fs = append(fs, field{"metadata", json.RawMessage(meta.Bytes())})
	if e.InitialEmotion != nil {
		fs = append(fs, field{"initial_emotion", *e.InitialEmotion})
	}
	if e.FinalEmotion != nil {
		fs = append(fs, field{"final_emotion", *e.FinalEmotion})
	}
	if len(e.EmotionTrajectory) > 0 {
		fs = append(fs, field{"emotion_trajectory", e.EmotionTrajectory})
	}
	if len(e.UserBigFive) > 0 {
		fs = append(fs, field{"user_big_five", e.UserBigFive})
	}
	return fs, nil
}

// referenceEncode is Encode by the reference encoder.
func referenceEncode(e *Record) ([]byte, error) {
	fs, err := recordFields(e)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = writeObject(&buf, fs, e.Extra)
	return buf.Bytes(), err
}

// checkEncodeIsReference fails when Encode and the reference encoder
// disagree on e (bytes, or whether it fails).
func checkEncodeIsReference(t *testing.T, e *Record) {
	t.Helper()
	want, werr := referenceEncode(e)
	got, err := Encode(e)
	if (err != nil) != (werr != nil) || err == nil && !bytes.Equal(got, want) {
		t.Fatalf("Encode %s (%v)\nreference %s (%v)", got, err, want, werr)
	}
}

// TestObjectEncIsWriteObject: Encode writes the reference's bytes for the
// sample file's records, the dialogue engine's, and extras that replace a
// member the object has, name one it lacks, or omit members.
func TestObjectEncIsWriteObject(t *testing.T) {
	var recs []*Record
	for _, line := range append(sampleLines(t), canonLines(t)...) {
		e, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, e)
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	round, out := 2, "out"
	d := Directive{AgentName: "A", Action: "b", Tone: "c"}
	turn := func(extra map[string]json.RawMessage) Turn {
		return Turn{TurnIdx: 3, RoundID: &round, TurnType: TurnAgent, AgentName: "A", Response: "r <&>", Directive: &d,
			DirectiveOutput: &out, Extra: extra}
	}
	for _, extra := range []map[string]json.RawMessage{
		nil,
		{"response": raw(`"replaced"`), "zeta": raw(`1`), "alpha": raw(`[true]`)},
		{omitKey: raw(`["agent_name","directive"]`), "emotion": raw(`"fear"`)},
		{omitKey: raw(`["agent_name"]`), "round_id": raw(`null`)},
		{omitKey: raw(`["response","system","turns"]`), "response": raw(`"dropped"`), "system": raw(`0`), "turns": raw(`[]`)},
		{"meeting": raw(`"m2"`), "start_idx": raw(`5`), "agents_spoken": raw(`{}`), "system": raw(`1`), "directive": raw(`0`)},
		{"turn_type": raw(`7`), "b": raw(`{}`), "a": raw(`null`), "c": raw(`""`), "d": raw(`1`), "e": raw(`2`),
			"f": raw(`3`), "g": raw(`4`), "h": raw(`5`), "i": raw(`6`)},
	} {
		bare := Turn{TurnIdx: 0, AgentName: "user", Response: "x", Extra: extra}
		escaped := Turn{TurnIdx: 1, RoundID: &round, TurnType: TurnAgent, AgentName: "The Anchor", Response: "hi & <b>",
			Directive: &Directive{AgentName: "A", Action: "é\u2028", Tone: "\x01"}, DirectiveOutput: &out, Extra: extra}
		empty := Turn{TurnIdx: 3, Directive: &Directive{}, DirectiveOutput: new(string), Extra: extra}
		m := Metadata{SchemaVersion: SchemaVersion, System: "s", Extra: extra}
		start, meeting := 4, "m"
		recs = append(recs,
			&Record{ConvID: "c", Turns: []Turn{turn(extra), bare, escaped, empty, UserTurn(2, 1, "u", "anger")}, Metadata: m,
				Extra: extra},
			&Record{ConvID: "c", IDField: "id", IDRaw: raw(`17`), StartIdx: &start, Meeting: &meeting,
				AgentsSpoken: map[string]int{"b": 1, "a": 2}, UserBigFive: raw(`{"o":1}`), Metadata: m,
				Extra: map[string]json.RawMessage{"id": raw(`"x"`), "conv_id": raw(`"y"`), "initial_emotion": raw(`"z"`)}})
	}
	for _, e := range recs {
		checkEncodeIsReference(t, e)
	}
	if _, err := Encode(&Record{Extra: map[string]json.RawMessage{omitKey: raw(`{`)}}); err == nil {
		t.Error("an unreadable omit list was encoded")
	}
}

// FuzzEncodeIsReference: for every line the general path reads, Encode
// writes the reference's bytes.
func FuzzEncodeIsReference(f *testing.F) {
	for _, line := range append(canonLines(f), sampleLines(f)...) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := decodeRecordGeneral(line)
		if err != nil {
			return
		}
		checkEncodeIsReference(t, e)
	})
}
