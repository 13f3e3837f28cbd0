package train

import (
	"context"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/train"
)

// RewardInputOfStored is what the Director's GRPO rewards of a trajectory
// whose turns are a stored episode's.
func RewardInputOfStored(turns []results.Turn) (prompt, text string, err error) {
	ds := make([]jsonl.Turn, len(turns))
	for i, t := range turns {
		ds[i] = dialogueTurn(t)
	}
	return rewardInput(ds)
}

// ReadPairs reads the pairs of units as the reward-model stage trains on
// them.
func ReadPairs(ctx context.Context, store *results.Store, units []string) ([]train.Pair, error) {
	_, pairs, err := readPairs(ctx, &runner.Env{Store: store}, units)
	return pairs, err
}
