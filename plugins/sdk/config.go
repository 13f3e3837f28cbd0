package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"mascot.dev/mascot/plugins/spec"
)

// Validator is implemented by config types that check themselves after
// decoding; its diagnostics are returned by DecodeConfig.
type Validator interface {
	Validate() []Diagnostic
}

// DecodeConfig decodes a plugin's JSON config into T strictly (unknown
// fields are errors) and, when T implements Validator, validates it.
// Problems come back as diagnostics with the attribute path at fault, so
// the user sees which option of the judge block is wrong. An empty config
// decodes to T's zero value.
func DecodeConfig[T any](raw json.RawMessage) (T, []Diagnostic) {
	var cfg T
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, []Diagnostic{decodeDiagnostic(err)}
		}
	}
	if v, ok := any(&cfg).(Validator); ok {
		return cfg, v.Validate()
	}
	if v, ok := any(cfg).(Validator); ok {
		return cfg, v.Validate()
	}
	return cfg, nil
}

func decodeDiagnostic(err error) Diagnostic {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var path []string
		if te.Field != "" {
			path = strings.Split(te.Field, ".")
		}
		return spec.AttrError(path, "invalid config value",
			fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value))
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name := strings.Trim(f, `"`)
		return spec.AttrError([]string{name}, "unknown config field", fmt.Sprintf("field %q is not an option of this plugin", name))
	}
	return spec.AttrError(nil, "invalid config JSON", msg)
}
