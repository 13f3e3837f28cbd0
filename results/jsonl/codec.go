package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// omitKey is an Extra entry listing schema keys the original record did not
// have, so that export leaves them out again.
const omitKey = "$omit"

// EncodeMetadata writes a metadata block (with its extras) as JSON.
func EncodeMetadata(m Metadata) ([]byte, error) {
	return appendMetadata(nil, m)
}

// DecodeMetadata reads a metadata block losslessly.
func DecodeMetadata(raw json.RawMessage) (Metadata, error) {
	if m, ok := decodeMetadataFast(raw); ok {
		return m, nil
	}
	return decodeMetadataGeneral(raw)
}

func decodeMetadataGeneral(raw json.RawMessage) (Metadata, error) {
	var m Metadata
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return m, fmt.Errorf("decoding metadata: %w", err)
	}
	str := func(k string, dst *string) { _ = json.Unmarshal(obj[k], dst) }
	str("schema_version", &m.SchemaVersion)
	str("system", &m.System)
	str("dataset", &m.Dataset)
	str("persona_set", &m.PersonaSet)
	str("director_model", &m.DirectorModel)
	str("speaker_model", &m.SpeakerModel)
	str("user_model", &m.UserModel)
	str("rubric_version", &m.RubricVersion)
	enc, err := EncodeMetadata(m)
	if err != nil {
		return m, err
	}
	m.Extra, err = diffExtra(obj, enc)
	return m, err
}

func decodeTurn(raw json.RawMessage) (Turn, error) {
	var t Turn
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return t, fmt.Errorf("decoding turn: %w", err)
	}
	_ = json.Unmarshal(obj["turn_idx"], &t.TurnIdx)
	if v, ok := obj["round_id"]; ok {
		var r int
		if json.Unmarshal(v, &r) == nil {
			t.RoundID = &r
		}
	}
	_ = json.Unmarshal(obj["turn_type"], &t.TurnType)
	_ = json.Unmarshal(obj["agent_name"], &t.AgentName)
	_ = json.Unmarshal(obj["response"], &t.Response)
	if v, ok := obj["directive"]; ok {
		var d Directive
		if json.Unmarshal(v, &d) == nil && string(bytes.TrimSpace(v)) != "null" {
			t.Directive = &d
		}
	}
	if v, ok := obj["directive_output"]; ok {
		var s string
		if json.Unmarshal(v, &s) == nil && string(bytes.TrimSpace(v)) != "null" {
			t.DirectiveOutput = &s
		}
	}
	enc, err := appendTurn(nil, &t)
	if err != nil {
		return t, err
	}
	t.Extra, err = diffExtra(obj, enc)
	return t, err
}

// Encode writes a record as one MASCOT JSONL line (no newline).
func Encode(e *Record) ([]byte, error) {
	var buf bytes.Buffer
	if err := Append(&buf, e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Append appends Encode's line to buf.
func Append(buf *bytes.Buffer, e *Record) error {
	b, err := appendRecord(buf.AvailableBuffer(), e)
	if err != nil {
		return fmt.Errorf("encoding episode %s: %w", e.ConvID, err)
	}
	buf.Write(b)
	return nil
}

// Decode reads one MASCOT JSONL line. Every key of the line survives: keys
// outside the schema, and schema keys whose value the typed fields cannot
// reproduce (null, another type), are kept in Extra, so that
// Encode(Decode(line)) equals line as a JSON value.
func Decode(line []byte) (*Record, error) {
	e, _, err := DecodeKeepingMetadata(line)
	return e, err
}

// DecodeKeepingMetadata is Decode that also returns the record's metadata
// block as EncodeMetadata writes it, when the line holds it in that form
// (an exported line does), and "" otherwise: a store that keeps the block
// as JSON need not encode it again. The block is a slice of a copy of the
// line, as the record's strings are.
func DecodeKeepingMetadata(line []byte) (*Record, string, error) {
	if e, meta := scanRecord(line); e != nil {
		return e, meta, nil
	}
	e, err := decodeRecordGeneral(line)
	return e, "", err
}

// decodeRecordGeneral is Decode for any line: every key decoded on
// its own, the extras found by encoding the result and comparing.
func decodeRecordGeneral(line []byte) (*Record, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, fmt.Errorf("decoding record: %w", err)
	}
	e := &Record{IDField: "conv_id"}
	idRaw, ok := obj["conv_id"]
	if !ok {
		if idRaw, ok = obj["id"]; ok {
			e.IDField = "id"
		}
	}
	if ok {
		if err := json.Unmarshal(idRaw, &e.ConvID); err != nil {
			e.ConvID = string(bytes.TrimSpace(idRaw))
			e.IDRaw = append(json.RawMessage(nil), bytes.TrimSpace(idRaw)...)
		}
	}
	if v, ok := obj["start_idx"]; ok {
		var n int
		if json.Unmarshal(v, &n) == nil && string(v) != "null" {
			e.StartIdx = &n
		}
	}
	e.Meeting = optString(obj, "meeting")
	e.InitialEmotion = optString(obj, "initial_emotion")
	e.FinalEmotion = optString(obj, "final_emotion")
	if v, ok := obj["turns"]; ok {
		var raws []json.RawMessage
		if json.Unmarshal(v, &raws) == nil {
			for _, r := range raws {
				t, err := decodeTurn(r)
				if err != nil {
					return nil, fmt.Errorf("record %s: %w", e.ConvID, err)
				}
				e.Turns = append(e.Turns, t)
			}
		}
	}
	if v, ok := obj["agents_spoken"]; ok {
		_ = json.Unmarshal(v, &e.AgentsSpoken)
	}
	if v, ok := obj["metadata"]; ok {
		if m, err := DecodeMetadata(v); err == nil {
			e.Metadata = m
		}
	}
	e.EmotionTrajectory = optRaw(obj, "emotion_trajectory")
	e.UserBigFive = optRaw(obj, "user_big_five")
	enc, err := Encode(e)
	if err != nil {
		return nil, err
	}
	if e.Extra, err = diffExtra(obj, enc); err != nil {
		return nil, err
	}
	return e, nil
}

func optString(obj map[string]json.RawMessage, k string) *string {
	v, ok := obj[k]
	if !ok {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return &s
}

func optRaw(obj map[string]json.RawMessage, k string) json.RawMessage {
	v, ok := obj[k]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return nil
	}
	return c.Bytes()
}
