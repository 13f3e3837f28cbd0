package dialogue

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Profile kinds for simulated users; the kind is also the metadata
// persona_set ("default" when there is no profile).
const (
	ProfileNone  = ""
	ProfileBig5  = "big5"
	ProfileMBTI  = "mbti"
	personaNone  = "default"
	traitHigh    = 0.66
	traitLow     = 0.34
	mbtiLetters  = "EI SN TF JP"
	numMBTITypes = 16
)

// BigFive is an OCEAN profile, each trait in [0, 1].
type BigFive struct {
	Openness          float64 `json:"openness"`
	Conscientiousness float64 `json:"conscientiousness"`
	Extraversion      float64 `json:"extraversion"`
	Agreeableness     float64 `json:"agreeableness"`
	Neuroticism       float64 `json:"neuroticism"`
}

// RandomBigFive draws each trait uniformly from {0.1, 0.3, 0.5, 0.7, 0.9}.
func RandomBigFive(r *rand.Rand) BigFive {
	lv := func() float64 { return 0.1 + 0.2*float64(r.IntN(5)) }
	return BigFive{lv(), lv(), lv(), lv(), lv()}
}

// Describe turns the profile into prompt text.
func (b BigFive) Describe() string {
	traits := []struct {
		v         float64
		high, low string
	}{
		{b.Openness, "curious and open to new ideas", "conventional and prefers the familiar"},
		{b.Conscientiousness, "organised and dutiful", "spontaneous and a bit disorganised"},
		{b.Extraversion, "outgoing and talkative", "reserved and quiet"},
		{b.Agreeableness, "warm and cooperative", "blunt and sceptical of others"},
		{b.Neuroticism, "easily worried and emotionally reactive", "calm and emotionally steady"},
	}
	var parts []string
	for _, t := range traits {
		switch {
		case t.v >= traitHigh:
			parts = append(parts, t.high)
		case t.v <= traitLow:
			parts = append(parts, t.low)
		}
	}
	if len(parts) == 0 {
		return "balanced, with no extreme traits"
	}
	return strings.Join(parts, "; ")
}

// MBTITypes lists the 16 MBTI types.
func MBTITypes() []string {
	out := make([]string, 0, numMBTITypes)
	for _, a := range "EI" {
		for _, b := range "SN" {
			for _, c := range "TF" {
				for _, d := range "JP" {
					out = append(out, string([]rune{a, b, c, d}))
				}
			}
		}
	}
	return out
}

// ValidMBTI reports whether t is one of the 16 types (case-insensitive).
func ValidMBTI(t string) bool {
	t = strings.ToUpper(t)
	if len(t) != 4 {
		return false
	}
	for i, pair := range strings.Fields(mbtiLetters) {
		if !strings.ContainsRune(pair, rune(t[i])) {
			return false
		}
	}
	return true
}

// DescribeMBTI turns a type into prompt text.
func DescribeMBTI(t string) string {
	t = strings.ToUpper(t)
	if !ValidMBTI(t) {
		return ""
	}
	words := map[byte]string{
		'E': "energised by talking with others", 'I': "reflective and private",
		'S': "focused on concrete facts", 'N': "drawn to patterns and possibilities",
		'T': "decides with logic", 'F': "decides with feelings and values",
		'J': "likes plans and closure", 'P': "keeps options open",
	}
	parts := make([]string, 4)
	for i := range 4 {
		parts[i] = words[t[i]]
	}
	return fmt.Sprintf("%s: %s", t, strings.Join(parts, ", "))
}
