package spec

import (
	"fmt"
	"strings"
)

// Severity says whether a Diagnostic voids what it is attached to.
type Severity int

const (
	// SeverityError voids the item, episode or call it is attached to.
	SeverityError Severity = 1
	// SeverityWarning is informational; results are kept.
	SeverityWarning Severity = 2
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "unspecified"
}

// Diagnostic is a problem with the user's input or with one item, reported
// as data rather than as a transport error.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail,omitempty"`
	// Path is the config attribute at fault, e.g. ["judges", "0", "url"].
	Path []string `json:"path,omitempty"`
	// ItemID is the item or episode concerned; empty for the whole call.
	ItemID string `json:"item_id,omitempty"`
}

// String formats the diagnostic on one line.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Severity.String())
	if len(d.Path) > 0 {
		b.WriteString(" at ")
		b.WriteString(strings.Join(d.Path, "."))
	}
	if d.ItemID != "" {
		fmt.Fprintf(&b, " (item %s)", d.ItemID)
	}
	b.WriteString(": ")
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString(": ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// Errorf returns an error diagnostic about one item (itemID may be empty).
func Errorf(itemID, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityError, ItemID: itemID, Summary: fmt.Sprintf(format, args...)}
}

// Warnf returns a warning diagnostic about one item (itemID may be empty).
func Warnf(itemID, format string, args ...any) Diagnostic {
	return Diagnostic{Severity: SeverityWarning, ItemID: itemID, Summary: fmt.Sprintf(format, args...)}
}

// AttrError returns an error diagnostic about a config attribute.
func AttrError(path []string, summary, detail string) Diagnostic {
	return Diagnostic{Severity: SeverityError, Path: path, Summary: summary, Detail: detail}
}

// HasErrors reports whether any diagnostic has SeverityError.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// DiagnosticsError turns error diagnostics into one Go error, or nil.
func DiagnosticsError(ds []Diagnostic) error {
	var msgs []string
	for _, d := range ds {
		if d.Severity == SeverityError {
			msgs = append(msgs, d.String())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
