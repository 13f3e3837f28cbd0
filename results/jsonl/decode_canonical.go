package jsonl

import (
	"encoding/json"
	"strings"
)

// The first tier of Decode: a line exactly as the exporter writes it
// (Append's keys, in Append's order, no spaces), read by matching that
// form instead of tokenising JSON. An import of 100,000 exported
// episodes spent a fifth of its CPU in json v2 reading such lines
// (docs/benchmarks.md, "Results store at 100,000 episodes").
//
// The scanner reads only what Append writes: its strings and integers
// spelled as Append spells them, members in Append's order, extra keys
// sorted, no spaces in the typed raw fields. A line it reads is therefore
// one Append writes back byte for byte, in the exporter's form, whose
// every value has one reading, so any JSON decoder finds the record this
// one found (the tests and fuzzers hold both to the encoder and to the
// general path). Verbatim JSON (extra values, the two raw fields), which
// Append writes back as it is read, is validated here. The dialogue
// engine's own records are this form: user turns without agent_name and
// with their emotion, the situation in the metadata, a null Big Five
// among the extra keys. Anything else (a non-string id, another order,
// null in a typed field's place, an escape Append would not write) is
// read key by key (decodeRecordGeneral).

// scanRecord returns the record of a line in the exporter's form (nil for
// any other line) and its metadata block as the line holds it:
// EncodeMetadata's bytes, since the scanner reads only the encoder's form.
func scanRecord(line []byte) (*Record, string) {
	c := canonScanner{s: string(line)} // one copy; unescaped strings are slices of it
	e := c.record()
	if e == nil || c.i != len(c.s) {
		return nil, ""
	}
	return e, c.meta
}

// canonScanner reads s from i; its methods report false (or nil) on
// anything outside the exporter's form, where the caller gives up.
type canonScanner struct {
	s    string
	i    int
	buf  []byte // spelled's
	meta string // the record's metadata block, as read
}

// lit consumes x when s continues with it.
func (c *canonScanner) lit(x string) bool {
	if strings.HasPrefix(c.s[c.i:], x) {
		c.i += len(x)
		return true
	}
	return false
}

func (c *canonScanner) record() *Record {
	e := &Record{IDField: "conv_id"}
	ok := c.lit(`{"conv_id":`) && c.str(&e.ConvID)
	if ok && c.lit(`,"start_idx":`) {
		var n int
		ok, e.StartIdx = c.int(&n), &n
	}
	if ok && c.lit(`,"meeting":`) {
		var m string
		ok, e.Meeting = c.str(&m), &m
	}
	if !ok || !c.lit(`,"turns":[`) || !c.turns(e) {
		return nil
	}
	if c.lit(`,"agents_spoken":{`) && !c.agents(e) {
		return nil
	}
	if !c.lit(`,"metadata":`) {
		return nil
	}
	start := c.i
	if !c.lit(`{"schema_version":`) || !c.metadata(&e.Metadata) {
		return nil
	}
	c.meta = c.s[start:c.i]
	for _, f := range []struct {
		key string
		dst **string
	}{{`,"initial_emotion":`, &e.InitialEmotion}, {`,"final_emotion":`, &e.FinalEmotion}} {
		if c.lit(f.key) {
			var v string
			if !c.str(&v) {
				return nil
			}
			*f.dst = &v
		}
	}
	for _, f := range []struct {
		key string
		dst *json.RawMessage
	}{{`,"emotion_trajectory":`, &e.EmotionTrajectory}, {`,"user_big_five":`, &e.UserBigFive}} {
		if c.lit(f.key) {
			// The other tiers compact these and drop a null: Append
			// would write such a value back otherwise.
			v := c.raw()
			if v == nil || string(v) == "null" || spaced(v) {
				return nil
			}
			*f.dst = v
		}
	}
	// The typed fields left out may come back as extra keys holding null,
	// as the general path keeps them.
	nullable := map[string]bool{"start_idx": e.StartIdx == nil, "meeting": e.Meeting == nil,
		"agents_spoken": e.AgentsSpoken == nil, "initial_emotion": e.InitialEmotion == nil,
		"final_emotion": e.FinalEmotion == nil, "emotion_trajectory": e.EmotionTrajectory == nil,
		"user_big_five": e.UserBigFive == nil}
	if !c.extras(recordKeys, nullable, &e.Extra) {
		return nil
	}
	return e
}

// recordKeys, turnKeys and metadataKeys are the keys each object's typed
// fields read. One of them among the extra keys is refused (unless null
// where nullable allows it): Append would write it back there when its
// field is absent, so the check passes, but the general path reads it
// into the field.
var (
	recordKeys = map[string]bool{"conv_id": true, "start_idx": true, "meeting": true, "turns": true,
		"agents_spoken": true, "metadata": true, "initial_emotion": true, "final_emotion": true,
		"emotion_trajectory": true, "user_big_five": true}
	turnKeys = map[string]bool{"turn_idx": true, "round_id": true, "turn_type": true, "directive": true,
		"agent_name": true, "response": true, "directive_output": true}
	metadataKeys = map[string]bool{"schema_version": true, "system": true, "dataset": true, "persona_set": true,
		"director_model": true, "speaker_model": true, "user_model": true, "rubric_version": true}
)

// extras reads an object's keys after its typed fields, and its "}",
// into dst: in increasing order, as Append sorts them. "$omit" is never
// read from a line (Append writes none).
func (c *canonScanner) extras(typed, nullable map[string]bool, dst *map[string]json.RawMessage) bool {
	prev := ""
	for n := 0; c.lit(`,`); n++ {
		k, ok := c.member(dst)
		if !ok || n > 0 && k <= prev || k == omitKey || typed[k] && !(nullable[k] && string((*dst)[k]) == "null") {
			return false
		}
		prev = k
	}
	return c.lit(`}`)
}

// member reads one "key":value of an object into *dst (made when nil)
// and returns its key: false for a key not spelled as AppendString and
// json.Marshal spell it (json.Unmarshal reads such a key as it is), an
// invalid value, or a key read before.
func (c *canonScanner) member(dst *map[string]json.RawMessage) (string, bool) {
	var k string
	if !c.str(&k) || !c.lit(`:`) {
		return "", false
	}
	v := c.raw()
	if v == nil {
		return "", false
	}
	if *dst == nil {
		*dst = map[string]json.RawMessage{}
	}
	if _, dup := (*dst)[k]; dup {
		return "", false
	}
	(*dst)[k] = v
	return k, true
}

// turns reads the turns' array after its "[" and its "]".
func (c *canonScanner) turns(e *Record) bool {
	if c.lit(`]`) {
		return true
	}
	if e.Turns == nil {
		e.Turns = make([]Turn, 0, strings.Count(c.s[c.i:], `{"turn_idx":`))
	}
	for {
		var t Turn
		if !c.lit(`{"turn_idx":`) || !c.int(&t.TurnIdx) {
			return false
		}
		if c.lit(`,"round_id":`) {
			var n int
			if !c.int(&n) {
				return false
			}
			t.RoundID = &n
		}
		if c.lit(`,"turn_type":`) && (!c.str(&t.TurnType) || t.TurnType == "") {
			return false // Append leaves an empty turn_type out
		}
		if c.lit(`,"directive":{"agent_name":`) {
			var d Directive
			if !c.str(&d.AgentName) || !c.lit(`,"action":`) || !c.str(&d.Action) || !c.lit(`,"tone":`) ||
				!c.str(&d.Tone) || !c.lit(`}`) {
				return false
			}
			t.Directive = &d
		}
		// A user turn of the dialogue engine has no agent_name: the
		// general path lists it under "$omit" for Append to leave out.
		if c.lit(`,"agent_name":`) {
			if !c.str(&t.AgentName) {
				return false
			}
		} else {
			t.Extra = map[string]json.RawMessage{omitKey: json.RawMessage(`["agent_name"]`)}
		}
		if !c.lit(`,"response":`) || !c.str(&t.Response) {
			return false
		}
		if c.lit(`,"directive_output":`) {
			var o string
			if !c.str(&o) {
				return false
			}
			t.DirectiveOutput = &o
		}
		if !c.extras(turnKeys, nil, &t.Extra) {
			return false
		}
		e.Turns = append(e.Turns, t)
		if c.lit(`]`) {
			return true
		}
		if !c.lit(`,`) {
			return false
		}
	}
}

// agents reads agents_spoken after its "{" and its "}".
func (c *canonScanner) agents(e *Record) bool {
	e.AgentsSpoken = map[string]int{}
	if c.lit(`}`) {
		return true
	}
	for prev := ""; ; {
		var k string
		var n int
		if !c.str(&k) || len(e.AgentsSpoken) > 0 && k <= prev || !c.lit(`:`) || !c.int(&n) {
			return false // Append sorts the names
		}
		e.AgentsSpoken[k], prev = n, k
		if c.lit(`}`) {
			return true
		}
		if !c.lit(`,`) {
			return false
		}
	}
}

// metadata reads the metadata block after its first key, its extra keys
// and its "}".
func (c *canonScanner) metadata(m *Metadata) bool {
	return c.str(&m.SchemaVersion) &&
		c.lit(`,"system":`) && c.str(&m.System) &&
		c.lit(`,"dataset":`) && c.str(&m.Dataset) &&
		c.lit(`,"persona_set":`) && c.str(&m.PersonaSet) &&
		c.lit(`,"director_model":`) && c.str(&m.DirectorModel) &&
		c.lit(`,"speaker_model":`) && c.str(&m.SpeakerModel) &&
		c.lit(`,"user_model":`) && c.str(&m.UserModel) &&
		c.lit(`,"rubric_version":`) && c.str(&m.RubricVersion) &&
		c.extras(metadataKeys, nil, &m.Extra)
}

// decodeMetadataFast reads a metadata block in the encoder's own form with
// the record scanner (false for any other block, which is decoded key by
// key).
func decodeMetadataFast(raw []byte) (Metadata, bool) {
	var m Metadata
	c := canonScanner{s: string(raw)}
	if !c.lit(`{"schema_version":`) || !c.metadata(&m) || c.i != len(c.s) {
		return Metadata{}, false
	}
	return m, true
}
