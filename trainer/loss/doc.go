// Package loss holds the training objectives of the trainer as plain-Go
// functions of per-token log-probabilities and per-sequence scores: the
// Bradley–Terry reward-model loss, GRPO exactly as TRL computes it, DPO
// (sigmoid), and the masked cross-entropy used by SFT and pretraining.
//
// Layer: trainer. It imports nothing but the standard library.
//
// Every loss returns its value together with its exact derivative with
// respect to its inputs (the "seeds"). The gorgonia graph in
// trainer/autodiff back-propagates Σ seed·input, which by the chain rule
// gives the exact parameter gradient of the loss; so the losses' own
// derivatives are written by hand here and checked against finite
// differences in float64 (loss_test.go). Our choice, because it keeps the
// branching parts of the losses (clipping, min, masking, group statistics)
// in ordinary Go, where they are easy to read next to the TRL source they
// reproduce (docs/design/trl-losses.md).
//
// Conventions: log-probabilities are given per completion token as
// [sequence][token] slices with a mask of the same shape (1 = the token
// counts, 0 = padding, prompt or after EOS); masks are float64 so callers
// can weight tokens.
package loss
