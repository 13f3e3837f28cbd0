package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"testing"
)

// decodeRecordCanonical is the first tier's record of line, or nil.
func decodeRecordCanonical(line []byte) *Record {
	e, _ := scanRecord(line)
	return e
}

// canonLines are exported lines with what the scanner must read right:
// escapes, non-ASCII text, optional keys, raw values and extra keys.
func canonLines(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	round, start, meeting, out1 := 2, 7, "ES2004a", `{"agent":"x"}`
	for i, text := range []string{
		"plain", `quote " and \ slash`, "line\nbreak\ttab\r\u0001", "<html> & co", "naïve — ✓ 😀",
		"\u2028sep\u2029", "", "/ not escaped",
	} {
		r := &Record{IDField: "conv_id", ConvID: fmt.Sprintf("c%d %s", i, text),
			Metadata: Metadata{SchemaVersion: SchemaVersion, System: "mascot", Dataset: text}}
		r.Turns = []Turn{
			{TurnIdx: 0, TurnType: TurnUser, AgentName: "user", Response: text},
			{TurnIdx: 1, RoundID: &round, TurnType: TurnAgent, AgentName: "The Beacon", Response: text + text,
				Directive: &Directive{AgentName: "The Beacon", Action: "comfort", Tone: text}, DirectiveOutput: &out1},
			{TurnIdx: -3, AgentName: text, Response: "x"},
		}
		switch i % 4 {
		case 0:
			r.StartIdx, r.Meeting = &start, &meeting
		case 1:
			r.AgentsSpoken = map[string]int{"The Beacon": 3, "b": 0}
			r.InitialEmotion, r.FinalEmotion = &text, &meeting
			r.EmotionTrajectory = []byte(`["sad",{"a":[1,2.5e-3,null,true]}]`)
			r.UserBigFive = []byte(`{"o":0.5,"c":-1}`)
		case 2:
			r.AgentsSpoken = map[string]int{}
			r.Turns = nil
		}
		if i%2 == 0 {
			label(r, text)
		}
		line, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	// The dialogue engine's own form: user turns without agent_name and
	// with their emotion, the situation and branch links in the metadata,
	// a null Big Five and the MBTI type among the extra keys.
	for i, emotion := range []string{"anxiety", ""} {
		r := &Record{IDField: "conv_id", ConvID: fmt.Sprintf("engine-%d", i),
			Metadata: Metadata{SchemaVersion: SchemaVersion, System: "mascot", Dataset: "esconv",
				Extra: map[string]json.RawMessage{"situation": []byte(`"I lost my job"`), "branch": []byte(`{"node":1,"children":[]}`)}},
			Turns: []Turn{UserTurn(0, 0, "I can't sleep", emotion),
				AgentTurn(1, 0, "The Beacon", "That sounds hard.", Directive{AgentName: "The Beacon", Action: "a", Tone: "t"}, "raw")},
			Extra: map[string]json.RawMessage{"user_big_five": []byte("null"), "user_mbti": []byte(`"INFJ"`)}}
		if i == 1 {
			r.UserBigFive, r.Extra = []byte(`{"o":1}`), map[string]json.RawMessage{"user_mbti": []byte(`"INFJ"`)}
		}
		label(r, "episodes")
		line, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

// TestDecodeRecordCanonicalEqualsGeneral: the scanner reads every line in
// the exporter's form (the dialogue engine's, the sample file's exported
// lines) as the general path does, and leaves other lines to it.
func TestDecodeRecordCanonicalEqualsGeneral(t *testing.T) {
	read := 0
	for _, line := range append(canonLines(t), sampleLines(t)...) {
		want, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatal(err)
		}
		got := decodeRecordCanonical(line)
		if got == nil && bytes.HasPrefix(line, []byte(`{"conv_id":"engine-`)) {
			t.Errorf("the scanner refused a line in the dialogue engine's form: %s", line)
		}
		if got == nil && bytes.HasPrefix(line, []byte(`{"conv_id":"hit:12_conv:24",`)) {
			t.Errorf("the scanner refused the sample's line as the exporter writes it: %s", line)
		}
		if got == nil {
			continue
		}
		read++
		checkScanned(t, line, got, want)
	}
	if read < 10 {
		t.Fatalf("the scanner read %d lines", read)
	}
}

// TestDecodeRecordCanonicalRefuses: lines near the exporter's form but not
// in it go to the other tiers, whose records Decode then returns.
func TestDecodeRecordCanonicalRefuses(t *testing.T) {
	lines := canonLines(t)
	for _, c := range []struct{ name, old, new string }{
		{"a space", `"turns":`, `"turns": `},
		{"an escaped é", `naïve`, `na\u00efve`},
		{"a raw <", `\u003chtml`, `<html`},
		{"a leading zero", `"turn_idx":1`, `"turn_idx":01`},
		{"invalid raw JSON", `{"o":0.5,"c":-1}`, `{"o":0.5,}`},
		{"null raw value", `{"o":0.5,"c":-1}`, `null`},
		{"a turn's typed key again", `"response":"x"}`, `"response":"x","response":"y"}`},
		{"a metadata key again", `"rubric_version":""}`, `"rubric_version":"","system":"s"}`},
		{"an extra key twice", `"mode":"eval"`, `"mode":"eval","mode":"eval"`},
		{"a line's own $omit", `"mode":"eval"`, `"$omit":[],"mode":"eval"`},
		{"null for a typed field set", `"user_mbti":"INFJ"`, `"user_big_five":null,"user_mbti":"INFJ"`},
		{"a schema key again", `"mode":"eval"`, `"mode":"eval","turns":[]`},
		{"unsorted agents", `{"The Beacon":3,"b":0}`, `{"b":0,"The Beacon":3}`},
		{"a lone surrogate", `"response":"x"`, `"response":"\ud800"`},
		{"text after the line", `"x"}]`, `"x"}]x`},
		{"an escaped slash", `/ not escaped`, `\/ not escaped`},
		{"an upper-case escape", `\u003chtml`, `\u003Chtml`},
		{"a long escape of a quote", `quote \"`, `quote \u0022`},
		{"a long escape of a newline", `line\nbreak`, `line\u000abreak`},
		{"a raw U+2028", `\u2028sep`, "\u2028sep"},
		{"invalid UTF-8", `naïve`, "na\xefve"},
		{"the replacement's escape", `naïve`, `na\ufffdve`},
		{"minus zero", `"turn_idx":0`, `"turn_idx":-0`},
		{"an empty turn_type", `"turn_type":"user"`, `"turn_type":""`},
		{"unsorted extra keys", `"mode":"eval","stage":`, `"stage":"x","mode":"eval","zz":`},
		{"a spaced trajectory", `["sad",{"a"`, `["sad", {"a"`},
		{"a null trajectory", `"emotion_trajectory":["sad",{"a":[1,2.5e-3,null,true]}]`, `"emotion_trajectory":null`},
		{"an escaped extra key", `"mode":"eval"`, `"mod\u0065":"eval"`},
	} {
		n := 0
		for _, base := range lines {
			if !bytes.Contains(base, []byte(c.old)) {
				continue
			}
			n++
			if decodeRecordCanonical(base) == nil {
				t.Fatalf("the scanner refused the line %q starts from: %s", c.name, base)
			}
			line := bytes.Replace(base, []byte(c.old), []byte(c.new), 1)
			if e := decodeRecordCanonical(line); e != nil {
				t.Errorf("%s: the scanner read %s", c.name, line)
			}
			if _, meta, _ := DecodeKeepingMetadata(line); meta != "" {
				t.Errorf("%s: metadata kept from a line the general path read: %s", c.name, meta)
			}
		}
		if n == 0 {
			t.Errorf("%s: no line has %s", c.name, c.old)
		}
	}
}

// checkScanned holds a record the scanner read to the encoder and to the
// general path: Append writes it back as the line (which Decode no longer
// checks by encoding), and the general path reads the same record.
func checkScanned(t *testing.T, line []byte, got, want *Record) {
	t.Helper()
	var back bytes.Buffer
	if err := Append(&back, got); err != nil || !bytes.Equal(back.Bytes(), line) {
		t.Fatalf("the scanner read a line Append does not write back (%v):\n read %s\nwrite %s", err, line, back.Bytes())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanned %s\n got %+v\nwant %+v", line, got, want)
	}
	_, meta, err := DecodeKeepingMetadata(line)
	enc, encErr := EncodeMetadata(got.Metadata)
	if err != nil || encErr != nil || meta != string(enc) {
		t.Fatalf("the metadata kept from %s is %s, not EncodeMetadata's %s (%v, %v)", line, meta, enc, err, encErr)
	}
}

// inScannersForm says whether the scanner must read line: the general
// path's record of it is written back as the line, keeps conv_id as a
// string, lists no key under $omit but a user turn's agent_name, and has
// no extra key of a typed field's name (the scanner leaves all of these
// to the general path).
func inScannersForm(line []byte, e *Record) bool {
	var back bytes.Buffer
	if Append(&back, e) != nil || !bytes.Equal(back.Bytes(), line) || e.IDField != "conv_id" || e.IDRaw != nil {
		return false
	}
	typedIn := func(extra map[string]json.RawMessage, typed map[string]bool) bool {
		for k := range extra {
			if typed[k] || k == omitKey {
				return true
			}
		}
		return false
	}
	if typedIn(e.Extra, recordKeys) || typedIn(e.Metadata.Extra, metadataKeys) {
		return false
	}
	for _, tu := range e.Turns {
		extra := tu.Extra
		if string(extra[omitKey]) == `["agent_name"]` && tu.AgentName == "" {
			extra = maps.Clone(extra)
			delete(extra, omitKey)
		}
		if typedIn(extra, turnKeys) {
			return false
		}
	}
	return true
}

// FuzzDecodeRecordCanonical: whenever the scanner reads a line, Append
// writes its record back as the line and the general path reads the same
// record; and it reads every line in its form.
func FuzzDecodeRecordCanonical(f *testing.F) {
	for _, line := range append(canonLines(f), sampleLines(f)...) {
		f.Add(line)
	}
	f.Add([]byte(`{"conv_id":"a","turns":[],"metadata":{"schema_version":"1.0","system":"","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":""},"$omit":["turns"]}`))
	f.Add([]byte(`{"conv_id":"a","turns":[{"turn_idx":0,"agent_name":"x","response":"y","zz":null}],"metadata":{"schema_version":"1.0","system":"","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":"","x":{}},"id":3,"meeting":null}`))
	f.Add([]byte(`{"conv_id":"a\u00e9\/\u003C\u0022","turns":[{"turn_idx":007,"turn_type":"","agent_name":"x","response":"\u000a"}],"agents_spoken":{"b":1,"a":2},"metadata":{"schema_version":"1.0","system":"","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":"","b":1,"a":{}},"emotion_trajectory":[1, 2],"z":1,"y":2}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got := decodeRecordCanonical(line)
		want, err := decodeRecordGeneral(bytes.Clone(line))
		if got == nil {
			if err == nil && inScannersForm(line, want) {
				t.Fatalf("the scanner refused a line in its form: %s", line)
			}
			return
		}
		if err != nil {
			t.Fatalf("the scanner read a line the general path rejects: %v", err)
		}
		checkScanned(t, line, got, want)
	})
}
