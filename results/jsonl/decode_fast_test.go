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

// TestDecodeRecordFastEqualsGeneral checks that the fast path takes the
// exporter's own lines and decodes them exactly as the general path does,
// and leaves other lines (the Python sample's spacing) to the general path.
func TestDecodeRecordFastEqualsGeneral(t *testing.T) {
	fast := 0
	for _, line := range sampleLines(t) {
		want, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatal(err)
		}
		got := decodeRecordFast(line)
		if got == nil {
			if bytes.HasPrefix(line, []byte(`{"conv_id":"hit:12_conv:24",`)) {
				t.Errorf("fast path refused an exported line: %s", line)
			}
			continue
		}
		fast++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fast decode of %s\n got %+v\nwant %+v", line, got, want)
		}
	}
	if fast < 2 {
		t.Fatalf("fast path took %d lines", fast)
	}
}

// FuzzDecodeRecordFast: whenever the fast path accepts a line, its
// record equals the general path's.
func FuzzDecodeRecordFast(f *testing.F) {
	for _, line := range sampleLines(f) {
		f.Add(line)
	}
	f.Add([]byte(`{"conv_id":"a","turns":[],"metadata":{"schema_version":"1.0","system":"","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":""},"$omit":["turns"]}`))
	f.Add([]byte(`{"conv_id":"a","turns":[{"turn_idx":0,"agent_name":"x","response":"y","zz":null}],"metadata":{"schema_version":"1.0","system":"","dataset":"","persona_set":"","director_model":"","speaker_model":"","user_model":"","rubric_version":"","x":{}},"id":3,"meeting":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got := decodeRecordFast(line)
		if got == nil {
			return
		}
		want, err := decodeRecordGeneral(line)
		if err != nil {
			t.Fatalf("fast path took a line the general path rejects: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast decode of %s\n got %+v\nwant %+v", line, got, want)
		}
	})
}

// TestDecodeMetadataFastEqualsGeneral does the same for metadata blocks.
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
