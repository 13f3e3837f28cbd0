package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// sampleLines returns the sample file's records in their own (Python)
// form and in the exporter's form, with and without the stage and mode
// keys an export adds.
func sampleLines(t testing.TB) [][]byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/mascot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		out = append(out, line)
		e, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			enc, err := Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, enc)
			label(e, "gen")
		}
	}
	return out
}

// TestDecodeMetadataFastEqualsGeneral: the scanner reads a metadata block
// in the encoder's form as the general path does, and no other block.
func TestDecodeMetadataFastEqualsGeneral(t *testing.T) {
	for raw, fast := range map[string]bool{
		`{"schema_version":"1.0","system":"s","dataset":"d","persona_set":"p","director_model":"m","speaker_model":"m","user_model":"u","rubric_version":"r"}`:          true,
		`{"schema_version":"1.0","system":"s\u003c","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":"","seed":7}`: true,
		`{"schema_version":"1.0","system":"s<>","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":"","seed":7}`:     false,
		`{"schema_version": "1.0", "system": "s"}`: false,
		`{"system":"s","schema_version":"1.0"}`:    false,
	} {
		want, err := decodeMetadataGeneral([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeMetadataFast([]byte(raw))
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("fast decode of %s\n got %+v\nwant %+v", raw, got, want)
		}
		if ok != fast {
			t.Errorf("fast path took=%v, want %v: %s", ok, fast, raw)
		}
	}
}

// label adds the stage and mode keys an export adds to a record.
func label(r *Record, stage string) {
	if r.Extra == nil {
		r.Extra = map[string]json.RawMessage{}
	}
	for k, v := range map[string]string{"stage": stage, "mode": "eval"} {
		if _, ok := r.Extra[k]; !ok {
			r.Extra[k] = AppendString(nil, v)
		}
	}
}
