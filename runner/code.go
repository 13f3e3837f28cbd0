package runner

import (
	"bytes"
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/internal/buildinfo"
)

// runConfigJSON is what run_config.json holds: the resolved config with a
// "mascot" member naming the code that runs it and where the config's
// relative paths were read (paths: schema.Loaded.LocalPaths, which a
// loaded-back run_config.json keeps; the schema allows the member, so the
// file loads back as a spec, as stage-exec and chat do).
func runConfigJSON(canonical []byte, code buildinfo.Info, paths map[string]string) ([]byte, error) {
	type member struct {
		buildinfo.Info
		Paths map[string]string `json:"paths,omitempty"`
	}
	c, err := json.Marshal(member{Info: code, Paths: paths})
	if err != nil {
		return nil, fmt.Errorf("encoding the code version: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(canonical, &m); err != nil {
		return nil, fmt.Errorf("reading the resolved config: %w", err)
	}
	b := bytes.TrimSpace(canonical)
	if _, ok := m["mascot"]; ok {
		// Loaded from an earlier run_config.json: say which code runs it now.
		m["mascot"] = c
		if b, err = json.Marshal(m); err != nil {
			return nil, fmt.Errorf("encoding the resolved config: %w", err)
		}
	} else {
		// Appended, so the config's own member order stays as CUE wrote it.
		b = append([]byte(nil), b[:len(b)-1]...) // without its closing brace
		if len(m) > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `"mascot":`...), c...), '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("indenting run_config.json: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
