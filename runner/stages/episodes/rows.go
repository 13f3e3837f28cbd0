package episodes

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner/datasets"
	"mascot.dev/mascot/runner/dialogue"
)

// toRow is the results row of a dialogue episode: its record as the
// engine wrote it, with the sample's split labels and the stage's mode.
// The user's situation (what the simulated user was told, hidden from the
// agents) goes with the conversation, in the metadata, so a human rater
// comparing systems reads what the user came with.
func toRow(ep dialogue.Episode, s datasets.Sample, mode string, sampleIdx int) (results.Episode, error) {
	row := results.Episode{SampleIdx: sampleIdx, System: ep.Metadata.System, Dataset: ep.Metadata.Dataset,
		Valence: s.Valence, Domain: s.Domain, Mode: mode, Record: ep.Record}
	if sit := strings.TrimSpace(strings.Join([]string{s.Situation, s.Problem}, " ")); sit != "" {
		b, err := json.Marshal(sit)
		if err != nil {
			return row, fmt.Errorf("encoding the situation of %s: %w", ep.ConvID, err)
		}
		extra := maps.Clone(row.Metadata.Extra)
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra["situation"] = b
		row.Metadata.Extra = extra
	}
	return row, nil
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
