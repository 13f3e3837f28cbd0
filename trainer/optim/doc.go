// Package optim updates parameters: AdamW with decoupled weight decay and
// transformers' defaults (docs/design/trl-losses.md, "Optimizer"), global-norm gradient clipping,
// the linear schedule with warmup, and gradient accumulation.
//
// Layer: trainer. It works on plain slices (Param) so that it does not
// depend on the autodiff graph; trainer/train wires the model's
// parameters in.
//
// Gradient accumulation: callers run several backward passes, each adding
// into Param.Grad with its loss already divided the way the objective
// wants (trainer/loss takes the normalisers), and call Optimizer.Step once;
// Step clips, updates and zeroes the gradients, like torch's
// clip_grad_norm_ + optimizer.step() + zero_grad().
package optim
