package transfer

import (
	"encoding/json"

	"mascot.dev/mascot/internal/labels"
	"mascot.dev/mascot/results"
)

// deriveSplit fills Valence and Domain of an imported episode from, in
// order: its own "valence"/"domain" keys, its initial emotion, its meeting.
func deriveSplit(e *results.Episode) {
	str := func(k string) string {
		var s string
		if raw, ok := e.Extra[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	if e.Valence == "" {
		e.Valence = str("valence")
	}
	if e.Valence == "" && e.InitialEmotion != nil {
		e.Valence = labels.ValenceOf(*e.InitialEmotion)
	}
	if e.Valence == "" {
		e.Valence = labels.ValenceOf(str("emotion"))
	}
	if e.Domain == "" {
		e.Domain = str("domain")
	}
	if e.Domain == "" && e.Meeting != nil {
		e.Domain = labels.DomainFromMeetingID(*e.Meeting)
	}
}
