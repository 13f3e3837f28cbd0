package jsonl

import (
	"encoding/json"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The first tier of Decode: a line exactly as the exporter writes it
// (Append's keys, in Append's order, no spaces), read by matching that
// form instead of tokenising JSON. An import of 100,000 exported
// episodes spent a fifth of its CPU in json v2 reading such lines
// (docs/benchmarks.md, "Results store at 100,000 episodes").
//
// The scanner is lenient where it can be, since the same check as the
// json v2 tier ends it: the record it reads is kept only when Append
// writes it back byte for byte. A line that Append writes back is in
// the exporter's form, whose every value has one reading, so any JSON
// decoder finds the record this one found. What the check cannot see is
// verbatim JSON (extra keys and the two raw fields, written back as they
// are read): those values are validated here. Anything else (metadata or
// turns with extra keys, a non-string id, another order) goes to the
// json v2 tier.

// decodeRecordCanonical returns the record of a line in the exporter's
// form, or nil.
func decodeRecordCanonical(line []byte) *Record {
	c := canonScanner{s: string(line)} // one copy; unescaped strings are slices of it
	e := c.record()
	if e == nil || c.i != len(c.s) {
		return nil
	}
	if !writesBack(e, line) {
		return nil
	}
	return e
}

// canonScanner reads s from i; its methods report false (or nil) on
// anything outside the exporter's form, where the caller gives up.
type canonScanner struct {
	s string
	i int
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
	if !c.lit(`,"metadata":{"schema_version":`) || !c.metadata(&e.Metadata) {
		return nil
	}
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
			// Compacted as the other tiers read them: one with spaces
			// then fails the check.
			if *f.dst = compactRaw(jsontext.Value(c.raw())); *f.dst == nil {
				return nil
			}
		}
	}
	for c.lit(`,`) {
		var k string
		if !c.str(&k) || !c.lit(`:`) || schemaKeys[k] {
			return nil
		}
		v := c.raw()
		if v == nil {
			return nil
		}
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra[k] = v
	}
	if !c.lit(`}`) {
		return nil
	}
	return e
}

// schemaKeys are the keys a record's typed fields read. One of them after
// the typed fields is no extra key: Append would write it back there when
// its field is absent (the check passes), but the general path reads it
// into the field.
var schemaKeys = map[string]bool{"conv_id": true, "start_idx": true, "meeting": true, "turns": true,
	"agents_spoken": true, "metadata": true, "initial_emotion": true, "final_emotion": true,
	"emotion_trajectory": true, "user_big_five": true}

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
		if c.lit(`,"turn_type":`) && !c.str(&t.TurnType) {
			return false
		}
		if c.lit(`,"directive":{"agent_name":`) {
			var d Directive
			if !c.str(&d.AgentName) || !c.lit(`,"action":`) || !c.str(&d.Action) || !c.lit(`,"tone":`) ||
				!c.str(&d.Tone) || !c.lit(`}`) {
				return false
			}
			t.Directive = &d
		}
		if !c.lit(`,"agent_name":`) || !c.str(&t.AgentName) || !c.lit(`,"response":`) || !c.str(&t.Response) {
			return false
		}
		if c.lit(`,"directive_output":`) {
			var o string
			if !c.str(&o) {
				return false
			}
			t.DirectiveOutput = &o
		}
		if !c.lit(`}`) {
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
	for {
		var k string
		var n int
		if !c.str(&k) || !c.lit(`:`) || !c.int(&n) {
			return false
		}
		e.AgentsSpoken[k] = n
		if c.lit(`}`) {
			return true
		}
		if !c.lit(`,`) {
			return false
		}
	}
}

// metadata reads the metadata block after its first key, to its "}".
func (c *canonScanner) metadata(m *Metadata) bool {
	return c.str(&m.SchemaVersion) &&
		c.lit(`,"system":`) && c.str(&m.System) &&
		c.lit(`,"dataset":`) && c.str(&m.Dataset) &&
		c.lit(`,"persona_set":`) && c.str(&m.PersonaSet) &&
		c.lit(`,"director_model":`) && c.str(&m.DirectorModel) &&
		c.lit(`,"speaker_model":`) && c.str(&m.SpeakerModel) &&
		c.lit(`,"user_model":`) && c.str(&m.UserModel) &&
		c.lit(`,"rubric_version":`) && c.str(&m.RubricVersion) &&
		c.lit(`}`)
}
