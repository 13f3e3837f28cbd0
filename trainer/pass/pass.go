package pass

import "mascot.dev/mascot/trainer/compute"

// Batch is a batch of token sequences, right-padded by the network.
// Position ids are 0..len−1 for every row and padded keys are masked out
// of attention (right padding only, so no query row is fully masked).
type Batch struct {
	// IDs holds one token sequence per row, each at least one token long.
	IDs [][]int
	// T is the padded length reported in Outputs; 0 means the longest row.
	// A network may pad less internally (trainer/net pads each group of
	// rows to its own longest row).
	T int
}

// Len is the padded length: T, or the longest row when T is 0.
func (b Batch) Len() int {
	T := b.T
	if T == 0 {
		for _, r := range b.IDs {
			T = max(T, len(r))
		}
	}
	return T
}

// RunOptions tune one forward or backward pass.
type RunOptions struct {
	// Temperature divides the logits before the log-softmax (TRL's GRPO
	// does this with the sampling temperature); 0 means 1.
	Temperature float64
	// DisableAdapter runs the frozen base (PEFT's disable_adapter: the
	// reference policy of GRPO's KL and of DPO).
	DisableAdapter bool
	// Dropout applies LoRA dropout with masks drawn from DropoutSeed (see
	// lora.DropoutSeed), so a forward and a backward with the same seed see
	// the same masks.
	Dropout     bool
	DropoutSeed uint64
	// Logits asks Forward for the full logits (trainer/autodiff only, for
	// its tests; trainer/net refuses it: it never holds [N, V] logits).
	Logits bool
	// LogPFrom, when set, holds per row the first position whose log-prob
	// is wanted: LogP is computed at positions LogPFrom[b] ≤ t < len−1
	// only, reads 0 elsewhere, and seeds elsewhere are ignored. nil wants
	// every position. A network that computes more (autodiff) still
	// returns the same values at the wanted positions.
	LogPFrom []int
	// ScoreAt, when set, holds per row the one position whose score is
	// wanted (a reward model pools the last non-pad token): Score is
	// computed there only, reads 0 elsewhere, and seeds elsewhere are
	// ignored. nil wants every position of every row.
	ScoreAt []int
}

// Outputs are per-position results of a pass over a batch of B rows
// padded to T.
type Outputs struct {
	B, T int
	// LogP[b][t] = log p(IDs[b][t+1] | IDs[b][:t+1]) at the wanted positions
	// t < len(IDs[b])−1, else 0 (nil without an LM head).
	LogP [][]float64
	// Score[b][t] is the score head at position t (nil without a score head).
	Score [][]float64
	// Logits is [B·T·V], after temperature, when RunOptions.Logits is set.
	Logits []float32
}

// Param is one trainable parameter as an optimizer sees it: its value and
// accumulated gradient, both F32 tensors of the network's backend, and
// whether weight decay applies (not to norm weights, as transformers'
// get_decay_parameter_names).
type Param struct {
	// Name is the checkpoint key (Hugging Face, PEFT, or "score.weight").
	Name        string
	Decay       bool
	Value, Grad compute.Tensor
}
