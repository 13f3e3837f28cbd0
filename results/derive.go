package results

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"mascot.dev/mascot/internal/labels"
)

// deriveSplit fills Valence and Domain of an imported episode from, in
// order: its own "valence"/"domain" keys, its initial emotion, its meeting.
func deriveSplit(e *Episode) {
	str := func(k string) string {
		var s string
		if raw, ok := e.Extra[k]; ok {
			_ = jsonUnmarshalString(raw, &s)
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

// NewRunID returns a fresh, sortable run id: UTC time plus 4 random bytes,
// e.g. 20261202-171345-9f3a61c2.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
