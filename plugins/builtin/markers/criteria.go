package markers

import "mascot.dev/mascot/plugins/spec"

// The criteria ids.
const (
	PersonaMarkers      = "persona_markers"
	DirectiveCompliance = "directive_compliance"
	NonRedundancy       = "non_redundancy"
	WellFormed          = "well_formed"

	GroupPersonaMarkers      = "group_persona_markers"
	GroupDirectiveCompliance = "group_directive_compliance"
	GroupNonRedundancy       = "group_non_redundancy"
	GroupWellFormed          = "group_well_formed"
	Participation            = "participation"
	SupportOrder             = "support_order"
)

// Version names the criteria and their formulas; it changes when a score
// would.
const Version = "markers_v2"

// Criteria returns the per-agent and collective criteria, in order.
func Criteria() []spec.Criterion {
	agent := func(id, name, desc string) spec.Criterion {
		return spec.Criterion{ID: id, Name: name, Description: desc, Level: "agent"}
	}
	group := func(id, name, desc string) spec.Criterion {
		return spec.Criterion{ID: id, Name: name, Description: desc, Level: "collective"}
	}
	return []spec.Criterion{
		agent(PersonaMarkers, "Persona markers", "Distinct marker words of the speaking agent in the response: 1 for none, 5 from marker_target on."),
		agent(DirectiveCompliance, "Directive compliance", "Half for the directive's agent speaking, half for using the words of its action and tone (two suffice)."),
		agent(NonRedundancy, "Non-redundancy", "5 minus 4 times the share of the response's content words that repeat a word of the response or of the earlier turns."),
		agent(WellFormed, "Well-formed words", "5 minus 4 times the share of word fragments (single letters other than a, i, o; tokens without a vowel)."),
		group(GroupPersonaMarkers, "Persona markers (group)", "Mean persona_markers over the agent turns."),
		group(GroupDirectiveCompliance, "Directive compliance (group)", "Mean directive_compliance over the agent turns with a directive."),
		group(GroupNonRedundancy, "Non-redundancy (group)", "Mean non_redundancy over the agent turns, each against the turns before it."),
		group(GroupWellFormed, "Well-formed words (group)", "Mean well_formed over the agent turns."),
		group(Participation, "Participation", "Distinct companions who spoke over the most who could (the roster, or the agent turns if fewer): 1 + 4 x share."),
		group(SupportOrder, "Support order", "Agent turns that keep the support stages in order (stage_order): the first by the first stage's companion, none by an earlier stage's companion than the turn before it: 1 + 4 x share. Scored only with stage_order."),
	}
}

// scale maps a share in [0, 1] to the 1–5 scale.
func scale(share float64) float64 { return 1 + 4*min(1, max(0, share)) }
