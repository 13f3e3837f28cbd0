package lora

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"

	"mascot.dev/mascot/trainer/qwen3"
)

// Adapter is a LoRA adapter: its PEFT config and its tensors by PEFT key.
// Adapter implements qwen3.Adapter.
type Adapter struct {
	Config  Config
	Weights map[string]*qwen3.Tensor
}

var _ qwen3.Adapter = (*Adapter)(nil)

// New returns an adapter for model config m initialised as PEFT does with
// init_lora_weights=true: A ~ U(−1/√in, 1/√in), B = 0. Each A draws from its
// own stream derived from seed and its key.
func New(m qwen3.Config, c Config, seed uint64) (*Adapter, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	ks, err := KeyShapes(m, c)
	if err != nil {
		return nil, err
	}
	a := &Adapter{Config: c, Weights: make(map[string]*qwen3.Tensor, len(ks))}
	for _, k := range ks {
		t := &qwen3.Tensor{Shape: k.Shape, Data: make([]float32, k.Shape[0]*k.Shape[1])}
		if k.Shape[0] == c.R && isA(k.Key) {
			bound := InitBound(k.Shape[1])
			h := fnv.New64a()
			h.Write([]byte(k.Key))
			r := rand.New(rand.NewPCG(seed, h.Sum64()))
			for i := range t.Data {
				t.Data[i] = float32((2*r.Float64() - 1) * bound)
			}
		}
		a.Weights[k.Key] = t
	}
	return a, nil
}

func isA(key string) bool { return strings.HasSuffix(key, ".lora_A.weight") }

// A returns lora_A [r, in] of projection p in layer i, or nil.
func (a *Adapter) A(i int, p qwen3.Proj) *qwen3.Tensor { return a.Weights[KeyA(i, p)] }

// B returns lora_B [out, r] of projection p in layer i, or nil.
func (a *Adapter) B(i int, p qwen3.Proj) *qwen3.Tensor { return a.Weights[KeyB(i, p)] }

// Delta implements qwen3.Adapter.
func (a *Adapter) Delta(weightKey string) (*qwen3.Tensor, *qwen3.Tensor, float32, bool) {
	A, okA := a.Weights[peftKey(weightKey, "A")]
	B, okB := a.Weights[peftKey(weightKey, "B")]
	if !okA || !okB {
		return nil, nil, 0, false
	}
	return A, B, a.Config.Scaling(), true
}

// Check verifies that the adapter holds exactly the tensors KeyShapes lists
// for model config m, with those shapes.
func (a *Adapter) Check(m qwen3.Config) error {
	ks, err := KeyShapes(m, a.Config)
	if err != nil {
		return fmt.Errorf("checking adapter: %w", err)
	}
	if len(ks) != len(a.Weights) {
		return fmt.Errorf("checking adapter: %d tensors, the config needs %d", len(a.Weights), len(ks))
	}
	for _, k := range ks {
		t, ok := a.Weights[k.Key]
		if !ok {
			return fmt.Errorf("checking adapter: tensor %q is missing", k.Key)
		}
		if !slices.Equal(t.Shape, k.Shape) || len(t.Data) != k.Shape[0]*k.Shape[1] {
			return fmt.Errorf("checking adapter: tensor %q has shape %v, want %v", k.Key, t.Shape, k.Shape)
		}
	}
	return nil
}

// Clone returns a deep copy (e.g. a frozen snapshot of a training adapter).
func (a *Adapter) Clone() *Adapter {
	c := &Adapter{Config: a.Config, Weights: make(map[string]*qwen3.Tensor, len(a.Weights))}
	c.Config.TargetModules = slices.Clone(a.Config.TargetModules)
	for k, t := range a.Weights {
		c.Weights[k] = &qwen3.Tensor{Shape: slices.Clone(t.Shape), Data: slices.Clone(t.Data)}
	}
	return c
}
