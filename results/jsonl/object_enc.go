package jsonl

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// objectEnc writes one JSON object of the record codec: its members in
// the schema's order, then its extra keys sorted. An extra value replaces
// a member of the same key that the object has; keys listed under omitKey
// are left out, and so is an extra value of an omitted member's key. The dialogue engine gives most user turns and metadata
// blocks a few extra keys, so every object of an export and of an
// import's check goes through here: members are appended as they come,
// without a field list or boxed values.
type objectEnc struct {
	b     []byte
	n     int
	extra map[string]json.RawMessage
	omit  []string
	keys  []string // the extra keys but omitKey, sorted
	taken []bool   // keys[i] named a member: written in its place, or omitted with it
	bufs  struct {
		keys  [8]string
		taken [8]bool
	}
}

// start begins an object appended to b.
func (o *objectEnc) start(b []byte, extra map[string]json.RawMessage) error {
	*o = objectEnc{b: append(b, '{'), extra: extra}
	o.keys = o.bufs.keys[:0]
	for k, raw := range extra {
		if k != omitKey {
			o.keys = append(o.keys, k)
			continue
		}
		var err error
		if o.omit, err = omitList(raw); err != nil {
			return err
		}
	}
	slices.Sort(o.keys)
	if len(o.keys) <= len(o.bufs.taken) {
		o.taken = o.bufs.taken[:len(o.keys)]
	} else {
		o.taken = make([]bool, len(o.keys))
	}
	return nil
}

// member writes member k's key and reports whether its value is the
// caller's to write: false when k is omitted, or when an extra value of
// that key replaced it (written here). Called only for the members the
// object has, so an extra key naming a member it lacks stays an ordinary
// extra key, written by end.
func (o *objectEnc) member(k string) bool {
	var extra bool
	if len(o.keys) > 0 { // most objects have none: no search
		var i int
		if i, extra = slices.BinarySearch(o.keys, k); extra {
			o.taken[i] = true
		}
	}
	if len(o.omit) > 0 && slices.Contains(o.omit, k) {
		return false
	}
	o.key(k)
	if extra {
		o.b = append(o.b, o.extra[k]...)
		return false
	}
	return true
}

func (o *objectEnc) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(AppendString(o.b, k), ':')
}

func (o *objectEnc) str(k, v string) {
	if o.member(k) {
		o.b = AppendString(o.b, v)
	}
}

func (o *objectEnc) int(k string, v int) {
	if o.member(k) {
		o.b = appendJSONInt(o.b, v)
	}
}

func (o *objectEnc) raw(k string, v []byte) {
	if o.member(k) {
		o.b = append(o.b, v...)
	}
}

// end writes the extra keys no member took and closes the object.
func (o *objectEnc) end() []byte {
	for i, k := range o.keys {
		if !o.taken[i] {
			o.key(k)
			o.b = append(o.b, o.extra[k]...)
		}
	}
	return append(o.b, '}')
}

// omitAgentName is the omit list of every user turn the dialogue engine
// writes (UserTurn); omitList returns it without decoding. Callers only
// read it.
var omitAgentName = []string{"agent_name"}

// omitList decodes the keys listed under omitKey.
func omitList(raw json.RawMessage) ([]string, error) {
	if string(raw) == `["agent_name"]` {
		return omitAgentName, nil
	}
	var omit []string
	if err := json.Unmarshal(raw, &omit); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", omitKey, err)
	}
	return omit, nil
}

// appendMetadata appends a metadata block (with its extras).
func appendMetadata(b []byte, m Metadata) ([]byte, error) {
	var o objectEnc
	if err := o.start(b, m.Extra); err != nil {
		return b, err
	}
	o.str("schema_version", m.SchemaVersion)
	o.str("system", m.System)
	o.str("dataset", m.Dataset)
	o.str("persona_set", m.PersonaSet)
	o.str("director_model", m.DirectorModel)
	o.str("speaker_model", m.SpeakerModel)
	o.str("user_model", m.UserModel)
	o.str("rubric_version", m.RubricVersion)
	return o.end(), nil
}

// appendTurn appends a turn (with its extras).
func appendTurn(b []byte, t *Turn) ([]byte, error) {
	var o objectEnc
	err := o.start(b, t.Extra)
	if err != nil {
		return b, err
	}
	o.int("turn_idx", t.TurnIdx)
	if t.RoundID != nil {
		o.int("round_id", *t.RoundID)
	}
	if t.TurnType != "" {
		o.str("turn_type", t.TurnType)
	}
	if t.Directive != nil && o.member("directive") {
		o.b = AppendDirective(o.b, *t.Directive)
	}
	o.str("agent_name", t.AgentName)
	o.str("response", t.Response)
	if t.DirectiveOutput != nil {
		o.str("directive_output", *t.DirectiveOutput)
	}
	return o.end(), nil
}

// appendRecord appends a record as one line (no newline).
func appendRecord(b []byte, e *Record) ([]byte, error) {
	idKey := e.IDField
	if idKey == "" {
		idKey = "conv_id"
	}
	var o objectEnc
	err := o.start(b, e.Extra)
	if err != nil {
		return b, err
	}
	if len(e.IDRaw) > 0 {
		o.raw(idKey, e.IDRaw)
	} else {
		o.str(idKey, e.ConvID)
	}
	if e.StartIdx != nil {
		o.int("start_idx", *e.StartIdx)
	}
	if e.Meeting != nil {
		o.str("meeting", *e.Meeting)
	}
	if o.member("turns") {
		o.b = append(o.b, '[')
		for i := range e.Turns {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			if o.b, err = appendTurn(o.b, &e.Turns[i]); err != nil {
				return b, fmt.Errorf("encoding turn %d: %w", e.Turns[i].TurnIdx, err)
			}
		}
		o.b = append(o.b, ']')
	}
	if e.AgentsSpoken != nil && o.member("agents_spoken") {
		o.b = AppendSpoken(o.b, e.AgentsSpoken)
	}
	if o.member("metadata") {
		if o.b, err = appendMetadata(o.b, e.Metadata); err != nil {
			return b, err
		}
	}
	if e.InitialEmotion != nil {
		o.str("initial_emotion", *e.InitialEmotion)
	}
	if e.FinalEmotion != nil {
		o.str("final_emotion", *e.FinalEmotion)
	}
	if len(e.EmotionTrajectory) > 0 {
		o.raw("emotion_trajectory", e.EmotionTrajectory)
	}
	if len(e.UserBigFive) > 0 {
		o.raw("user_big_five", e.UserBigFive)
	}
	return o.end(), nil
}

// AppendSpoken appends agents_spoken as json.Marshal writes the map: its
// names sorted.
func AppendSpoken(b []byte, m map[string]int) []byte {
	b = append(b, '{')
	for i, name := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONInt(append(AppendString(b, name), ':'), m[name])
	}
	return append(b, '}')
}
