package results

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// valenceOf groups the 32 Empathetic Dialogues emotions (and ESConv's
// emotion types) into positive / negative / neutral, as mascot.md lists
// them (16/11/5). Unknown emotions give "".
var valenceOf = func() map[string]string {
	m := map[string]string{}
	for _, e := range strings.Fields(`afraid angry annoyed anxious apprehensive ashamed devastated disappointed
		disgusted embarrassed furious guilty jealous lonely sad terrified
		anxiety depression sadness anger fear shame disgust nervousness guilt pain jealousy`) {
		m[e] = "negative"
	}
	for _, e := range strings.Fields(`caring confident content excited faithful grateful hopeful impressed joyful
		proud trusting`) {
		m[e] = "positive"
	}
	for _, e := range strings.Fields(`anticipating nostalgic prepared sentimental surprised`) {
		m[e] = "neutral"
	}
	return m
}()

// ValenceOf returns the valence group of an emotion label ("" if unknown).
func ValenceOf(emotion string) string {
	return valenceOf[strings.ToLower(strings.TrimSpace(emotion))]
}

// DomainOfMeeting returns the QMSum domain of a meeting id: ES/IS/TS…
// product (AMI), B… academic (ICSI), covid_/education_… committee.
func DomainOfMeeting(meeting string) string {
	m := strings.ToLower(meeting)
	switch {
	case strings.HasPrefix(m, "covid_"), strings.HasPrefix(m, "education_"):
		return "committee"
	case strings.HasPrefix(m, "es"), strings.HasPrefix(m, "is"), strings.HasPrefix(m, "ts"):
		return "product"
	case strings.HasPrefix(m, "b"):
		return "academic"
	}
	return ""
}

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
		e.Valence = ValenceOf(*e.InitialEmotion)
	}
	if e.Valence == "" {
		e.Valence = ValenceOf(str("emotion"))
	}
	if e.Domain == "" {
		e.Domain = str("domain")
	}
	if e.Domain == "" && e.Meeting != nil {
		e.Domain = DomainOfMeeting(*e.Meeting)
	}
}

// NewRunID returns a fresh, sortable run id: UTC time plus 4 random bytes,
// e.g. 20261202-171345-9f3a61c2.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
