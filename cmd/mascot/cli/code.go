package cli

import (
	"encoding/json"
	"strings"

	"mascot.dev/mascot/internal/buildinfo"
)

// codeLine renders a run's recorded code version ("" when none was
// recorded, as for runs of an older mascot).
func codeLine(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var in buildinfo.Info
	if json.Unmarshal(raw, &in) != nil || in.Version == "" {
		return ""
	}
	return in.String()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
