package labels

import "strings"

// Meeting domains.
const (
	DomainAcademic  = "academic"
	DomainCommittee = "committee"
	DomainProduct   = "product"
)

// Domains lists the meeting domains, sorted.
var Domains = []string{DomainAcademic, DomainCommittee, DomainProduct}

// DomainFromMeetingID maps a QMSum meeting id to its domain: ES/IS/TS
// followed by a digit (AMI) is product, B followed by a lower-case letter
// (ICSI: Bed, Bmr, Bro, ...) is academic, covid_ and education_
// (parliamentary committees) are committee. Other ids give "".
func DomainFromMeetingID(id string) string {
	switch {
	case len(id) > 2 && (strings.HasPrefix(id, "ES") || strings.HasPrefix(id, "IS") || strings.HasPrefix(id, "TS")) && isDigit(id[2]):
		return DomainProduct
	case len(id) > 1 && id[0] == 'B' && id[1] >= 'a' && id[1] <= 'z':
		return DomainAcademic
	case strings.HasPrefix(id, "covid_") || strings.HasPrefix(id, "education_"):
		return DomainCommittee
	}
	return ""
}

// productRoles are the AMI role names QMSum uses as speaker names.
var productRoles = map[string]bool{"Project Manager": true, "Marketing": true, "Industrial Designer": true, "User Interface": true}

// academicTitles are the first words of ICSI speaker labels ("PhD A").
var academicTitles = map[string]bool{"Professor": true, "Grad": true, "PhD": true, "Postdoc": true, "Undergrad": true}

// DomainFromSpeakers tells a meeting's domain from its speaker names, for
// JSONL lines that carry no id. Rule, checked against all 35 meetings of
// the QMSum test split: if most distinct speakers are AMI roles (Project
// Manager, Marketing, Industrial Designer, User Interface) it is product;
// else if most are ICSI labels whose first word is Professor, Grad, PhD,
// Postdoc or Undergrad it is academic; otherwise (named people: members,
// ministers, witnesses) it is committee.
func DomainFromSpeakers(speakers []string) string {
	seen := map[string]bool{}
	product, academic := 0, 0
	for _, s := range speakers {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		first, _, _ := strings.Cut(s, " ")
		switch {
		case productRoles[s]:
			product++
		case academicTitles[first]:
			academic++
		}
	}
	switch {
	case len(seen) > 0 && 2*product > len(seen):
		return DomainProduct
	case len(seen) > 0 && 2*academic > len(seen):
		return DomainAcademic
	}
	return DomainCommittee
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
