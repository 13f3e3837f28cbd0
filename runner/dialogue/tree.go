package dialogue

import "mascot.dev/mascot/llm"

// PathTo returns the node ids from the root to id.
func (t Tree) PathTo(id int) []int {
	var rev []int
	for n := id; n >= 0; n = t.Nodes[n].Parent {
		rev = append(rev, n)
	}
	out := make([]int, len(rev))
	for i, n := range rev {
		out[len(rev)-1-i] = n
	}
	return out
}

// Episode returns the root-to-id path as a linear Episode (one trajectory,
// in the export schema). Counters are left zero: they belong to the tree.
func (t Tree) Episode(id int) Episode {
	ep := Episode{ConvID: t.ConvID, Metadata: t.Metadata, MeetingFields: t.MeetingFields, Turns: []Turn{}}
	for _, n := range t.PathTo(id) {
		ep.Turns = append(ep.Turns, t.Nodes[n].Turns...)
	}
	ep.AgentsSpoken = countSpoken(ep.Turns)
	if t.emotion || t.InitialEmotion != "" {
		traj := []string{t.InitialEmotion}
		for _, tr := range ep.Turns {
			if tr.TurnType == TurnUser {
				traj = append(traj, tr.Emotion)
			}
		}
		ep.EmotionFields = &EmotionFields{InitialEmotion: t.InitialEmotion, FinalEmotion: traj[len(traj)-1],
			EmotionTrajectory: traj, UserBigFive: t.UserBigFive, UserMBTI: t.UserMBTI}
	}
	return ep
}

// BranchGroup is one branch point: the Director prompt and the sibling
// nodes whose directives were drawn from it (a DPO/GRPO group).
type BranchGroup struct {
	Parent   int           `json:"parent"`
	RoundID  int           `json:"round_id"`
	Prompt   []llm.Message `json:"prompt"`
	Children []int         `json:"children"`
}

// BranchGroups lists every branch point in node order.
func (t Tree) BranchGroups() []BranchGroup {
	var out []BranchGroup
	for _, n := range t.Nodes {
		if len(n.Children) > 1 {
			out = append(out, BranchGroup{Parent: n.ID, RoundID: t.Nodes[n.Children[0]].RoundID,
				Prompt: n.DirectorPrompt, Children: append([]int(nil), n.Children...)})
		}
	}
	return out
}
