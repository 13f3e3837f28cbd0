package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"mascot.dev/mascot/experiments"
)

// The ESConv array decoder (json v2's engine under v1's rules) reads every
// file as encoding/json does: the same records, and an error for the same
// inputs.
func TestESConvDecodesAsEncodingJSON(t *testing.T) {
	failed, err := os.ReadFile(filepath.Join(sharedDatasets(t), "esconv", "FailedESConv.json"))
	if err != nil {
		t.Fatal(err)
	}
	demo, err := experiments.Files.ReadFile("demo/data/esconv.json")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{
		"FailedESConv.json": string(failed),
		"demo esconv.json":  string(demo),
		// encoding/json's rules: keys match case-insensitively, the last
		// of duplicate keys wins, invalid UTF-8 becomes U+FFFD, null
		// leaves a field as it is, unknown keys are ignored.
		"key case":      `[{"Situation": "a", "DIALOG": [{"Speaker": "usr", "CONTENT": "hi"}]}]`,
		"duplicate key": `[{"situation": "a", "situation": "b", "dialog": [{"speaker": "usr", "content": "x", "content": "y"}]}]`,
		"invalid utf-8": "[{\"situation\": \"\xff\xfe\", \"dialog\": [{\"speaker\": \"sys\", \"text\": \"ok\xc3\"}]}]",
		"nulls":         `[{"situation": null, "survey_score": null, "dialog": [{"speaker": "usr", "annotation": null}]}, null]`,
		"unknown keys":  `[{"extra": {"deep": [1, 2]}, "dialog": [{"speaker": "usr", "feedback": 3}]}]`,
		"survey":        `[{"survey_score": {"seeker": {"final_emotion_intensity": "2"}}, "dialog": []}]`,
		"escapes":       `[{"situation": "\u00e9\ud83d\ude00\n\"", "dialog": []}]`,
		// Errors.
		"wrong type":     `[{"dialog": 3}]`,
		"number as text": `[{"situation": 3}]`,
		"truncated":      `[{"dialog": [{"speaker": "usr"}]`,
		"bad syntax":     `[{"dialog": [}]`,
		"trailing":       `[] x`,
	}
	for name, in := range inputs {
		var want []esRecord
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := decodeESConvArray([]byte(in))
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, encoding/json's %v", name, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded\n%+v\nencoding/json decoded\n%+v", name, got, want)
		}
	}
}
