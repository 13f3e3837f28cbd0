package episodes

import (
	"encoding/json"
	"fmt"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// toRow maps a dialogue episode onto a results row so that
// results.EncodeRecord writes the same MASCOT JSONL fields json.Marshal of
// the dialogue episode does. Keys the row has no column for (QMSum's "id"
// beside "conv_id", user_mbti, a null user_big_five, user turns' emotion)
// travel in the Extra maps, which export writes back verbatim.
func toRow(ep dialogue.Episode, s datasets.Sample, mode string, sampleIdx int) (results.Episode, error) {
	m := ep.Metadata
	row := results.Episode{
		ConvID: ep.ConvID, SampleIdx: sampleIdx, System: m.System, Dataset: m.Dataset,
		Valence: s.Valence, Domain: s.Domain, Mode: mode, AgentsSpoken: ep.AgentsSpoken,
		Metadata: results.Metadata{SchemaVersion: m.SchemaVersion, System: m.System, Dataset: m.Dataset,
			PersonaSet: m.PersonaSet, DirectorModel: m.DirectorModel, SpeakerModel: m.SpeakerModel,
			UserModel: m.UserModel, RubricVersion: m.RubricVersion},
		Extra: map[string]json.RawMessage{},
	}
	if row.AgentsSpoken == nil {
		row.AgentsSpoken = map[string]int{}
	}
	if mf := ep.MeetingFields; mf != nil {
		id, _ := json.Marshal(mf.ID)
		row.Extra["id"] = id
		start, meeting := mf.StartIdx, mf.Meeting
		row.StartIdx, row.Meeting = &start, &meeting
	}
	if ef := ep.EmotionFields; ef != nil {
		ini, fin := ef.InitialEmotion, ef.FinalEmotion
		row.InitialEmotion, row.FinalEmotion = &ini, &fin
		traj := ef.EmotionTrajectory
		if traj == nil {
			traj = []string{}
		}
		var err error
		if row.EmotionTrajectory, err = json.Marshal(traj); err != nil {
			return row, fmt.Errorf("encoding emotion trajectory of %s: %w", ep.ConvID, err)
		}
		if ef.UserBigFive != nil {
			if row.UserBigFive, err = json.Marshal(ef.UserBigFive); err != nil {
				return row, fmt.Errorf("encoding Big Five profile of %s: %w", ep.ConvID, err)
			}
		} else {
			row.Extra["user_big_five"] = json.RawMessage("null")
		}
		if ef.UserMBTI != "" {
			row.Extra["user_mbti"], _ = json.Marshal(ef.UserMBTI)
		}
	}
	// The user's situation (what the simulated user was told, hidden from
	// the agents) goes with the conversation, so a human rater comparing
	// systems reads what the user came with.
	if sit := strings.TrimSpace(strings.Join([]string{s.Situation, s.Problem}, " ")); sit != "" {
		b, err := json.Marshal(sit)
		if err != nil {
			return row, fmt.Errorf("encoding the situation of %s: %w", ep.ConvID, err)
		}
		row.Metadata.Extra = map[string]json.RawMessage{"situation": b}
	}
	row.Turns = turnRows(ep.Turns)
	return row, nil
}

// turnRows maps dialogue turns onto turn rows.
func turnRows(ts []dialogue.Turn) []results.Turn {
	out := make([]results.Turn, len(ts))
	for i, t := range ts {
		round := t.RoundID
		r := results.Turn{TurnIdx: t.TurnIdx, RoundID: &round, TurnType: t.TurnType, AgentName: t.AgentName,
			Response: t.Response}
		if t.TurnType == dialogue.TurnUser {
			if t.Emotion != "" {
				e, _ := json.Marshal(t.Emotion)
				r.Extra = map[string]json.RawMessage{"emotion": e}
			}
		} else {
			d := results.Directive{}
			if t.Directive != nil {
				d = results.Directive{AgentName: t.Directive.AgentName, Action: t.Directive.Action, Tone: t.Directive.Tone}
			}
			out := t.DirectiveOutput
			r.Directive, r.DirectiveOutput = &d, &out
		}
		out[i] = r
	}
	return out
}

// branchInfo is the tree link of a branching node, kept in the metadata
// block under "branch" (the episodes table has no parent column).
type branchInfo struct {
	Node            int    `json:"node"`
	Parent          int    `json:"parent"` // node id (= episode idx in the unit); -1 for the root
	ParentEpisodeID int64  `json:"parent_episode_id,omitempty"`
	Path            string `json:"path"`
	RoundID         int    `json:"round_id"`
	Branch          int    `json:"branch"`
	Children        []int  `json:"children"`
	Leaf            bool   `json:"leaf"`
	NodeTurns       int    `json:"node_turns"` // turns this node added (the tail of turns[])
}

// setBranch stores the node's link (and, at a branch point, the Director
// prompt its children were drawn from) in the metadata extras.
func setBranch(row *results.Episode, n dialogue.Node, parentID int64) error {
	children := n.Children
	if children == nil {
		children = []int{}
	}
	b, err := json.Marshal(branchInfo{Node: n.ID, Parent: n.Parent, ParentEpisodeID: parentID, Path: n.Path,
		RoundID: n.RoundID, Branch: n.Branch, Children: children, Leaf: len(n.Children) == 0, NodeTurns: len(n.Turns)})
	if err != nil {
		return fmt.Errorf("encoding branch link of node %d: %w", n.ID, err)
	}
	if row.Metadata.Extra == nil {
		row.Metadata.Extra = map[string]json.RawMessage{}
	}
	row.Metadata.Extra["branch"] = b
	if len(n.Children) > 1 && len(n.DirectorPrompt) > 0 {
		p, err := json.Marshal(n.DirectorPrompt)
		if err != nil {
			return fmt.Errorf("encoding director prompt of node %d: %w", n.ID, err)
		}
		row.Metadata.Extra["director_prompt"] = p
	}
	return nil
}
