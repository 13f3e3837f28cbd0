// Package builtin serves mascot's built-in judges and metrics as plugins
// of the mascot binary itself (`mascot plugin serve NAME`), so they run out
// of process exactly like third-party plugins and speak the same protocol.
//
// Layer: plugin side (uses plugins/sdk); cmd/mascot calls Serve. The
// implementations live in the sub-packages rubric, markers, textmetrics
// and nli.
package builtin

import (
	"fmt"
	"strings"

	"mascot.dev/mascot/plugins/builtin/markers"
	"mascot.dev/mascot/plugins/builtin/nli"
	"mascot.dev/mascot/plugins/builtin/rubric"
	"mascot.dev/mascot/plugins/builtin/textmetrics"
	"mascot.dev/mascot/plugins/sdk"
)

var servers = map[string]func() error{
	"rubric":            func() error { return sdk.ServeJudge(rubric.New()) },
	"markers":           func() error { return sdk.ServeJudge(markers.New()) },
	"self-bleu":         func() error { return sdk.ServeMetric(textmetrics.NewSelfBLEU()) },
	"distinct-n":        func() error { return sdk.ServeMetric(textmetrics.NewDistinct()) },
	"nli-contradiction": func() error { return sdk.ServeMetric(nli.New()) },
}

// Names returns the built-in plugin names, sorted.
func Names() []string {
	return []string{"distinct-n", "markers", "nli-contradiction", "rubric", "self-bleu"}
}

// Kind returns "judge" or "metric" for a built-in name, or "" if unknown.
func Kind(name string) string {
	switch name {
	case "rubric", "markers":
		return "judge"
	case "self-bleu", "distinct-n", "nli-contradiction":
		return "metric"
	}
	return ""
}

// Serve serves the named built-in plugin until the host disconnects. It
// returns an error for an unknown name, or when the process was not started
// by a mascot host (sdk.ErrNotUnderHost).
func Serve(name string) error {
	s, ok := servers[name]
	if !ok {
		return fmt.Errorf("serving plugin %q: no such built-in plugin (have %s)", name, strings.Join(Names(), ", "))
	}
	if err := s(); err != nil {
		return fmt.Errorf("serving plugin %s: %w", name, err)
	}
	return nil
}
