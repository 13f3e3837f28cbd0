package lora

import "mascot.dev/mascot/trainer/qwen3"

// DropoutSeed is the seed of the LoRA dropout mask of one batch row at
// the input of projection p of layer i, in a pass whose dropout seed is
// pass. Element t·in + j of the row (position t, input feature j) is kept
// iff compute.Keep(DropoutSeed(...), t·in+j, p): the mask depends on the
// row, the position and the feature only, never on how a network pads or
// groups rows, so trainer/net and trainer/autodiff drop the same inputs
// and a backward re-derives its forward's mask.
func DropoutSeed(pass uint64, layer int, p qwen3.Proj, row int) uint64 {
	z := pass
	for _, v := range [3]uint64{uint64(layer), uint64(p), uint64(row)} {
		z = mix64(z ^ (v+1)*0x9e3779b97f4a7c15)
	}
	return z
}

// mix64 is SplitMix64's finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
