package jsonl

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

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
	return out
}

// TestDecodeRecordCanonicalEqualsGeneral: the scanner reads every line in
// the exporter's form, the sample file's exported lines too, as the general
// path does, and leaves other lines to the tiers after it.
func TestDecodeRecordCanonicalEqualsGeneral(t *testing.T) {
	read := 0
	for _, line := range append(canonLines(t), sampleLines(t)...) {
		want, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatal(err)
		}
		got := decodeRecordCanonical(line)
		if got == nil {
			if fast := decodeRecordFast(line); fast != nil && fast.Metadata.Extra == nil && !turnExtras(fast) {
				t.Errorf("the scanner refused a line the json v2 tier reads: %s", line)
			}
			continue
		}
		read++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("scanned %s\n got %+v\nwant %+v", line, got, want)
		}
	}
	if read < 10 {
		t.Fatalf("the scanner read %d lines", read)
	}
}

func turnExtras(r *Record) bool {
	for _, t := range r.Turns {
		if t.Extra != nil {
			return true
		}
	}
	return false
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
		{"a turn's extra key", `"response":"x"}`, `"response":"x","k":1}`},
		{"a schema key again", `"mode":"eval"`, `"mode":"eval","turns":[]`},
		{"unsorted agents", `{"The Beacon":3,"b":0}`, `{"b":0,"The Beacon":3}`},
		{"a lone surrogate", `"response":"x"`, `"response":"\ud800"`},
		{"text after the line", `"x"}]`, `"x"}]x`},
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
		}
		if n == 0 {
			t.Errorf("%s: no line has %s", c.name, c.old)
		}
	}
}

// FuzzDecodeRecordCanonical: whenever the scanner reads a line, its record
// equals the general path's.
func FuzzDecodeRecordCanonical(f *testing.F) {
	for _, line := range append(canonLines(f), sampleLines(f)...) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got := decodeRecordCanonical(line)
		if got == nil {
			return
		}
		want, err := decodeRecordGeneral(bytes.Clone(line))
		if err != nil {
			t.Fatalf("the scanner read a line the general path rejects: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanned %s\n got %+v\nwant %+v", line, got, want)
		}
	})
}
