package wire

import (
	"mascot.dev/mascot/plugins/spec"

	pluginv1 "mascot.dev/mascot/plugins/proto/mascot/plugin/v1"
)

func diagsToProto(ds []spec.Diagnostic) []*pluginv1.Diagnostic {
	out := make([]*pluginv1.Diagnostic, 0, len(ds))
	for _, d := range ds {
		sev := pluginv1.Diagnostic_SEVERITY_ERROR
		if d.Severity == spec.SeverityWarning {
			sev = pluginv1.Diagnostic_SEVERITY_WARNING
		}
		out = append(out, &pluginv1.Diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail,
			AttributePath: d.Path, ItemId: d.ItemID})
	}
	return out
}

func diagsFromProto(ds []*pluginv1.Diagnostic) []spec.Diagnostic {
	var out []spec.Diagnostic
	for _, d := range ds {
		// Unspecified severity counts as an error: a plugin that forgets to
		// set it should not silently pass.
		sev := spec.SeverityError
		if d.GetSeverity() == pluginv1.Diagnostic_SEVERITY_WARNING {
			sev = spec.SeverityWarning
		}
		out = append(out, spec.Diagnostic{Severity: sev, Summary: d.GetSummary(), Detail: d.GetDetail(),
			Path: d.GetAttributePath(), ItemID: d.GetItemId()})
	}
	return out
}

func turnsToProto(ts []spec.Turn) []*pluginv1.Turn {
	out := make([]*pluginv1.Turn, 0, len(ts))
	for _, t := range ts {
		p := &pluginv1.Turn{Index: int32(t.Index), Role: t.Role, Speaker: t.Speaker, Text: t.Text}
		if t.RoundID != nil {
			p.RoundId, p.HasRoundId = int32(*t.RoundID), true
		}
		if t.Directive != nil {
			p.Directive = &pluginv1.Directive{AgentName: t.Directive.AgentName, Action: t.Directive.Action, Tone: t.Directive.Tone}
		}
		out = append(out, p)
	}
	return out
}

func turnsFromProto(ts []*pluginv1.Turn) []spec.Turn {
	var out []spec.Turn
	for _, p := range ts {
		t := spec.Turn{Index: int(p.GetIndex()), Role: p.GetRole(), Speaker: p.GetSpeaker(), Text: p.GetText()}
		if p.GetHasRoundId() {
			r := int(p.GetRoundId())
			t.RoundID = &r
		}
		if d := p.GetDirective(); d != nil {
			t.Directive = &spec.Directive{AgentName: d.GetAgentName(), Action: d.GetAction(), Tone: d.GetTone()}
		}
		out = append(out, t)
	}
	return out
}

var kindToProto = map[spec.ItemKind]pluginv1.ItemKind{
	spec.KindCandidate:  pluginv1.ItemKind_ITEM_KIND_CANDIDATE,
	spec.KindTurn:       pluginv1.ItemKind_ITEM_KIND_TURN,
	spec.KindEpisode:    pluginv1.ItemKind_ITEM_KIND_EPISODE,
	spec.KindComparison: pluginv1.ItemKind_ITEM_KIND_COMPARISON,
}

func kindFromProto(k pluginv1.ItemKind) spec.ItemKind {
	for s, p := range kindToProto {
		if p == k {
			return s
		}
	}
	return ""
}

// ItemToProto converts one item; the host uses it to measure request sizes.
func ItemToProto(it spec.Item) *pluginv1.Item {
	p := &pluginv1.Item{Id: it.ID, Kind: kindToProto[it.Kind], Context: turnsToProto(it.Context),
		Response: it.Response, AgentName: it.AgentName, Persona: it.Persona, Turns: turnsToProto(it.Turns),
		Source: it.Source, Metadata: it.Metadata, Seed: it.Seed}
	for _, a := range it.Alternatives {
		p.Alternatives = append(p.Alternatives, &pluginv1.Alternative{Id: a.ID, System: a.System,
			Response: a.Response, Turns: turnsToProto(a.Turns)})
	}
	return p
}

func itemFromProto(p *pluginv1.Item) spec.Item {
	it := spec.Item{ID: p.GetId(), Kind: kindFromProto(p.GetKind()), Context: turnsFromProto(p.GetContext()),
		Response: p.GetResponse(), AgentName: p.GetAgentName(), Persona: p.GetPersona(),
		Turns: turnsFromProto(p.GetTurns()), Source: p.GetSource(), Metadata: p.GetMetadata(), Seed: p.GetSeed()}
	for _, a := range p.GetAlternatives() {
		it.Alternatives = append(it.Alternatives, spec.Alternative{ID: a.GetId(), System: a.GetSystem(),
			Response: a.GetResponse(), Turns: turnsFromProto(a.GetTurns())})
	}
	return it
}

// EpisodeToProto converts one episode; the host uses it to measure sizes.
func EpisodeToProto(e spec.Episode) *pluginv1.Episode {
	return &pluginv1.Episode{Id: e.ID, Turns: turnsToProto(e.Turns), Metadata: e.Metadata}
}

func episodeFromProto(p *pluginv1.Episode) spec.Episode {
	return spec.Episode{ID: p.GetId(), Turns: turnsFromProto(p.GetTurns()), Metadata: p.GetMetadata()}
}
