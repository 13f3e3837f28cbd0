package rubric

import "mascot.dev/mascot/plugins/spec"

// RubricVersion names the criteria and anchors below.
const RubricVersion = "paper_v1"

// Levels of criteria.
const (
	LevelAgent      = "agent"
	LevelCollective = "collective"
)

func anchors(a1, a2, a3, a4, a5 string) []spec.Anchor {
	return []spec.Anchor{{Score: 1, Text: a1}, {Score: 2, Text: a2}, {Score: 3, Text: a3}, {Score: 4, Text: a4}, {Score: 5, Text: a5}}
}

// PaperV1 returns the paper's five per-agent and four collective criteria.
// The names are the paper's; the descriptions and anchors are ours.
func PaperV1() []spec.Criterion {
	return []spec.Criterion{
		{ID: "emotional_expressiveness", Name: "Emotional Expressiveness", Level: LevelAgent,
			Description: "How well the response conveys fitting emotion and warmth, in the agent's own voice, instead of flat or generic wording.",
			Anchors: anchors(
				"Cold, mechanical or emotionally wrong for the moment.",
				"Some emotional words, but formulaic or slightly off in tone.",
				"Appropriate emotion, expressed in a plain or predictable way.",
				"Clear, natural emotional tone that suits the user's state.",
				"Vivid, genuine and well-calibrated emotion that makes the reply feel human.")},
		{ID: "empathetic_support", Name: "Empathetic Support Quality", Level: LevelAgent,
			Description: "How well the response recognises the user's feelings and needs and offers support that could actually help.",
			Anchors: anchors(
				"Ignores or dismisses the user's feelings; unhelpful or harmful.",
				"Acknowledges feelings superficially; support is vague or misplaced.",
				"Recognises the main feeling and offers reasonable but generic support.",
				"Accurate understanding with supportive, tailored help.",
				"Deep, accurate understanding; support is specific, gentle and likely to help."),
		},
		{ID: "persona_consistency", Name: "Consistency (Persona)", Level: LevelAgent,
			Description: "How faithfully the response keeps the agent's persona card: role, style and goals, without drifting into a generic assistant voice.",
			Anchors: anchors(
				"No trace of the persona; generic assistant voice or a contradiction of the role.",
				"Faint traces of the persona, mostly generic.",
				"Recognisably in role, with lapses in style or goals.",
				"Consistently in role and style, with minor slips.",
				"Unmistakably this persona throughout: role, style and goals all show."),
		},
		{ID: "response_relevance", Name: "Response Relevance", Level: LevelAgent,
			Description: "How directly the response addresses the latest user message and the conversation so far.",
			Anchors: anchors(
				"Off topic or answers something else.",
				"Loosely related; misses the main point.",
				"On topic but partly generic or incomplete.",
				"Addresses the main point well, with small gaps.",
				"Precisely on point, building on the specific details shared so far."),
		},
		{ID: "social_contribution", Name: "Social Contribution", Level: LevelAgent,
			Description: "What the response adds to the group conversation: a new perspective or step rather than echoing or simply agreeing with others.",
			Anchors: anchors(
				"Only repeats or agrees with what was already said.",
				"Mostly echoes others with a small addition.",
				"Adds something, though overlapping with earlier turns.",
				"A distinct, useful contribution that complements the others.",
				"A clearly new and valuable angle that moves the conversation forward."),
		},
		{ID: "fidelity", Name: "Fidelity", Level: LevelCollective,
			Description: "Whether the conversation stays true to the source material and to what was said before, without invented facts or contradictions.",
			Anchors: anchors(
				"Frequent fabrications or contradictions of the source or earlier turns.",
				"Several inaccuracies or inconsistencies.",
				"Mostly faithful, with a few unsupported claims.",
				"Faithful, with at most a minor slip.",
				"Entirely faithful and internally consistent."),
		},
		{ID: "originality_specificity", Name: "Originality & Specificity", Level: LevelCollective,
			Description: "Whether the agents say specific, non-generic things tied to this situation, and avoid repeating each other.",
			Anchors: anchors(
				"Generic platitudes, heavily repeated across agents.",
				"Mostly generic with some repetition.",
				"A mix of specific and generic content.",
				"Mostly specific and varied.",
				"Consistently specific, varied and insightful."),
		},
		{ID: "relevance_coherence", Name: "Relevance & Coherence", Level: LevelCollective,
			Description: "Whether the turns follow a sensible arc, stay on the topic, and do not re-argue settled points.",
			Anchors: anchors(
				"Disjointed; turns ignore each other or the topic.",
				"Frequent jumps, loops or re-arguing.",
				"Generally on topic with some incoherent moves.",
				"Coherent and focused, with minor detours.",
				"A clear, well-built arc where every turn fits."),
		},
		{ID: "engagement_contribution", Name: "Engagement & Contribution", Level: LevelCollective,
			Description: "Whether the group engages with the user and with one another, each agent contributing its part.",
			Anchors: anchors(
				"Agents talk past the user and each other; little contribution.",
				"Weak engagement; one agent dominates or agents idle.",
				"Adequate engagement with uneven contributions.",
				"Good engagement; agents build on each other.",
				"Lively, balanced collaboration that keeps the user engaged."),
		},
	}
}

// criteriaFor returns the criteria of one level, restricted to ids when given.
func criteriaFor(all []spec.Criterion, level string, ids []string) []spec.Criterion {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []spec.Criterion
	for _, c := range all {
		if c.Level == level && (len(ids) == 0 || want[c.ID]) {
			out = append(out, c)
		}
	}
	return out
}
