package jsonl

import (
	"bytes"
	"encoding/json"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The fast path of Decode: one typed pass (json v2, no reflection
// per key) over a line written in the exporter's own form. It is taken only
// when Encode writes the decoded record back byte for byte; then
// Decode's general path would find the same typed fields and keep
// exactly the keys outside the schema as Extra, which is what the fast path
// returns. Any other line (other spacing or key order, null or mistyped
// values, keys the schema reads another way) goes the general way.

type fastRecord struct {
	ConvID            *string                   `json:"conv_id"`
	StartIdx          *int                      `json:"start_idx"`
	Meeting           *string                   `json:"meeting"`
	Turns             []fastTurn                `json:"turns"`
	AgentsSpoken      map[string]int            `json:"agents_spoken"`
	Metadata          *fastMetadata             `json:"metadata"`
	InitialEmotion    *string                   `json:"initial_emotion"`
	FinalEmotion      *string                   `json:"final_emotion"`
	EmotionTrajectory jsontext.Value            `json:"emotion_trajectory"`
	UserBigFive       jsontext.Value            `json:"user_big_five"`
	Unknown           map[string]jsontext.Value `json:",unknown"`
}

type fastTurn struct {
	TurnIdx         int                       `json:"turn_idx"`
	RoundID         *int                      `json:"round_id"`
	TurnType        string                    `json:"turn_type"`
	Directive       *Directive                `json:"directive"`
	AgentName       string                    `json:"agent_name"`
	Response        string                    `json:"response"`
	DirectiveOutput *string                   `json:"directive_output"`
	Unknown         map[string]jsontext.Value `json:",unknown"`
}

type fastMetadata struct {
	SchemaVersion string                    `json:"schema_version"`
	System        string                    `json:"system"`
	Dataset       string                    `json:"dataset"`
	PersonaSet    string                    `json:"persona_set"`
	DirectorModel string                    `json:"director_model"`
	SpeakerModel  string                    `json:"speaker_model"`
	UserModel     string                    `json:"user_model"`
	RubricVersion string                    `json:"rubric_version"`
	Unknown       map[string]jsontext.Value `json:",unknown"`
}

// decodeRecordFast returns the record of a line in the exporter's form,
// or nil when the line must be decoded the general way.
func decodeRecordFast(line []byte) *Record {
	r := fastRecords.Get().(*fastRecord)
	defer fastRecords.Put(r)
	// A record from the pool keeps its turns' array (json v2 appends into
	// it, zeroing each element it fills) and nothing else.
	*r = fastRecord{Turns: r.Turns[:0]}
	if jsonv2.Unmarshal(line, r) != nil || r.ConvID == nil || r.Metadata == nil {
		return nil
	}
	e := &Record{IDField: "conv_id", ConvID: *r.ConvID, StartIdx: r.StartIdx, Meeting: r.Meeting,
		AgentsSpoken: r.AgentsSpoken, Metadata: r.Metadata.metadata(), InitialEmotion: r.InitialEmotion,
		FinalEmotion: r.FinalEmotion, EmotionTrajectory: compactRaw(r.EmotionTrajectory),
		UserBigFive: compactRaw(r.UserBigFive), Extra: rawExtra(r.Unknown)}
	if len(r.Turns) > 0 {
		e.Turns = make([]Turn, len(r.Turns))
		for i, t := range r.Turns {
			e.Turns[i] = Turn{TurnIdx: t.TurnIdx, RoundID: t.RoundID, TurnType: t.TurnType, AgentName: t.AgentName,
				Response: t.Response, Directive: t.Directive, DirectiveOutput: t.DirectiveOutput,
				Extra: rawExtra(t.Unknown)}
		}
	}
	if !writesBack(e, line) {
		return nil
	}
	return e
}

// fastRecords holds decodeRecordFast's decoding targets, so that the
// array of a line's turns is not grown afresh, by reflection, for every
// line.
var fastRecords = sync.Pool{New: func() any { return new(fastRecord) }}

// writesBack reports whether Append writes e as line, byte for byte: the
// check that ends both fast tiers of Decode.
func writesBack(e *Record, line []byte) bool {
	enc := encodeBuffers.Get().(*bytes.Buffer)
	defer encodeBuffers.Put(enc)
	enc.Reset()
	return Append(enc, e) == nil && bytes.Equal(enc.Bytes(), line)
}

// encodeBuffers holds the buffers Decode's fast tiers re-encode lines into.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// decodeMetadataFast is decodeRecordFast for a metadata block alone.
func decodeMetadataFast(raw []byte) (Metadata, bool) {
	var fm fastMetadata
	if jsonv2.Unmarshal(raw, &fm) != nil {
		return Metadata{}, false
	}
	m := fm.metadata()
	enc, err := EncodeMetadata(m)
	return m, err == nil && bytes.Equal(enc, raw)
}

func (fm *fastMetadata) metadata() Metadata {
	return Metadata{SchemaVersion: fm.SchemaVersion, System: fm.System, Dataset: fm.Dataset,
		PersonaSet: fm.PersonaSet, DirectorModel: fm.DirectorModel, SpeakerModel: fm.SpeakerModel,
		UserModel: fm.UserModel, RubricVersion: fm.RubricVersion, Extra: rawExtra(fm.Unknown)}
}

// rawExtra keeps unknown keys verbatim, nil when there are none (as
// diffExtra returns).
func rawExtra(unknown map[string]jsontext.Value) map[string]json.RawMessage {
	if len(unknown) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(unknown))
	for k, v := range unknown {
		out[k] = json.RawMessage(v)
	}
	return out
}

// compactRaw is optRaw's form of a raw value: nil when absent or null,
// else compacted.
func compactRaw(v jsontext.Value) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return nil
	}
	return c.Bytes()
}
