package stagekit

import (
	"fmt"
	"strings"

	"mascot.dev/mascot/results"
)

// BlockPrompt precedes a conversation block scored by a group reward
// model. Group pairs compare whole conversations and share no prompt, so
// the reward model is trained, and the Director's GRPO scores its
// rollouts, on this instruction followed by the block (our choice).
const BlockPrompt = "Rate how well this group of companions supports the user together:\n"

// Transcript renders a conversation's generated turns as a block: one
// "Speaker: text" line per turn, "User" for the simulated user. It is the
// one template of the group reward model: the pairs stage stores group
// pairs' blocks with it, and the Director's GRPO renders its trajectories
// with it, so the model scores what it was trained on.
func Transcript(turns []results.Turn) string {
	var b strings.Builder
	for _, t := range turns {
		who := t.AgentName
		if t.TurnType == "user" {
			who = "User"
		}
		fmt.Fprintf(&b, "%s: %s\n", who, t.Response)
	}
	return b.String()
}
